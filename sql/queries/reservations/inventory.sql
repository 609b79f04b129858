-- name: take_inventory(property_id, wanted)
-- Takes least(available, wanted) per (room type, night), in one statement on rows lock_nights
-- locked just before, and returns what each night took. A night without a row, or whose
-- `available` was never sent, takes nothing and is not returned (NULL must not reach least(),
-- which would ignore it). `before` is the same rows read again: this transaction holds their
-- locks, so they hold what the UPDATE changes, the values RETURNING cannot show. One router
-- statement under Citus (the property named throughout, the wanted list inlined).
-- wanted: jsonb [{"room_type_id", "date", "rooms"}], one entry per (room type, night).
WITH wanted AS (
    SELECT w.room_type_id, w.date, w.rooms
      FROM jsonb_to_recordset(:wanted::jsonb) AS w(room_type_id bigint, date date, rooms integer)
)
UPDATE room_type_days d
   SET available = d.available - least(before.available, w.rooms), updated_at = now()
  FROM wanted w
  JOIN room_type_days before
    ON before.property_id = :property_id AND before.room_type_id = w.room_type_id
   AND before.date = w.date
 WHERE d.property_id = :property_id AND d.room_type_id = before.room_type_id
   AND d.date = before.date AND before.available IS NOT NULL
RETURNING d.room_type_id, d.date, least(before.available, w.rooms) AS taken;

-- name: record_nights*!
-- What a version asked of and took from each (room type, night): one row each, as VALUES
-- (routed to the reservation's shard under Citus; an INSERT ... SELECT from a list would go
-- through the coordinator).
INSERT INTO reservation_nights (reservation_id, version, property_id, room_type_id, date,
                                wanted, taken)
VALUES (:reservation_id, :version, :property_id, :room_type_id, :date, :wanted, :taken);

-- name: release_inventory(property_id, reservation_id)
-- Gives back exactly what the reservation's held nights took (never their shortfall) and marks
-- them released, so a second release finds nothing.
WITH released AS (
    UPDATE reservation_nights SET released_at = now()
     WHERE property_id = :property_id AND reservation_id = :reservation_id
       AND released_at IS NULL
    RETURNING room_type_id, date, taken
),
owed AS (
    SELECT room_type_id, date, sum(taken)::integer AS taken
      FROM released WHERE taken > 0
     GROUP BY room_type_id, date
),
-- Every statement names the property (all of a reservation's nights are its hotel's): one
-- shard, and under Citus a FOR UPDATE is allowed only there.
locked AS MATERIALIZED (
    SELECT d.room_type_id, d.date
      FROM room_type_days d JOIN owed o USING (room_type_id, date)
     WHERE d.property_id = :property_id
     ORDER BY d.date, d.room_type_id
       FOR UPDATE OF d
)
UPDATE room_type_days d
   SET available = d.available + o.taken, updated_at = now()
  FROM owed o JOIN locked l USING (room_type_id, date)
 WHERE d.property_id = :property_id AND d.room_type_id = o.room_type_id AND d.date = o.date
RETURNING d.room_type_id, d.date, o.taken;

-- name: lock_nights(property_id, reservation_id, wanted)
-- A modify releases the old state's nights and takes the new state's: locking both sets first,
-- in the one (date, room type) order every writer of room_type_days uses, keeps two modifies
-- that swap room types from deadlocking. The two sets are joined to room_type_days as one list,
-- so each night is one primary-key lookup: written as `IN (...) OR IN (...)` the planner could
-- only filter the property's whole key range, reading a year of rows to lock a few
-- (docs/benchmarks-history.md, "`lock_nights`: the plan before and after").
WITH nights AS (
    SELECT w.room_type_id, w.date
      FROM jsonb_to_recordset(:wanted::jsonb) AS w(room_type_id bigint, date date)
    UNION
    SELECT n.room_type_id, n.date FROM reservation_nights n
     WHERE n.property_id = :property_id AND n.reservation_id = :reservation_id
       AND n.released_at IS NULL
)
SELECT d.room_type_id, d.date
  FROM nights t
  JOIN room_type_days d
    ON d.property_id = :property_id AND d.date = t.date AND d.room_type_id = t.room_type_id
 ORDER BY d.date, d.room_type_id
   FOR UPDATE OF d;
