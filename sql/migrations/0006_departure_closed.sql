-- 0006_departure_closed: partial indexes of the day rows closed to departure.
-- Search reads the nights of a stay as one index range per hotel; the check-out day matters
-- only when it is closed to departure, which few rows are. These indexes answer that day from
-- a handful of entries, so the range stops at the last night instead of reading the day after
-- for every room type and rate plan (about 1/8 of the rows of a 7-night search).
-- Locks: SHARE on room_type_days and rate_plan_days while each index is built (one scan of the
-- table: about 2 s for the 14.6 M rows of the bench data set); ARI apply, bookings and
-- reservations wait that long, reads do not.

CREATE INDEX room_type_days_departure_closed
    ON room_type_days (property_id, date) WHERE closed_to_departure;

CREATE INDEX rate_plan_days_departure_closed
    ON rate_plan_days (property_id, date) WHERE closed_to_departure;
