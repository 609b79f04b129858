-- The deployment's key of confirmation numbers (migration 0038, bookings/confirmation.py).

-- name: confirmation_key()^
SELECT sealed, keyed_above FROM confirmation_key;

-- name: last_booking_id()$
-- The last id the booking sequence drew (0 before its first): every id drawn later is above it.
SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM bookings_id_seq;

-- name: create_confirmation_key(sealed, sealed_by, keyed_above)^
-- Made once: of two processes making it at once one inserts and the other gets nothing back
-- (it then reads the row that won).
INSERT INTO confirmation_key (sealed, sealed_by, keyed_above)
VALUES (:sealed, :sealed_by, :keyed_above)
ON CONFLICT (only_row) DO NOTHING
RETURNING sealed, keyed_above;
