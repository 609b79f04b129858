-- 0020_event_log: the event log behind GET /events and the webhooks (contract 12.2, 12.3), and
-- the mapping's `receives_bookings` (the hotel's receiver of hotel_booking.* events).
-- Locks: creates two tables; ADD COLUMN with a constant default on partner_properties (no
-- rewrite, ACCESS EXCLUSIVE for an instant); CREATE TRIGGER on the new table only.
--
-- One log per partner and environment, read like the change feed (0009, 0012, 0013): each row
-- carries the transaction id of the node that stores it and that node's group (`origin`),
-- stamped by the change log's own row trigger, and a reader pages in (xid, id) order below each
-- origin's horizon (change_feed_horizons()), so no event can appear behind a position served,
-- whatever the order in which concurrent writers commit. Events are written by the transaction
-- of their cause, beside it: distributed by property_id with the bookings, batches and
-- reservations (connectivity/store/sharding.py), so writing one is a router INSERT on the
-- cause's shard and adds no two-phase commit.

SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

ALTER TABLE partner_properties ADD COLUMN receives_bookings boolean NOT NULL DEFAULT false;
-- A booking's transaction looks up its hotel's receivers.
CREATE INDEX partner_properties_receivers_idx ON partner_properties (property_id)
    WHERE receives_bookings;

CREATE TABLE event_log (
    id           bigint GENERATED ALWAYS AS IDENTITY,
    property_id  bigint NOT NULL REFERENCES properties(id),
    partner_id   bigint NOT NULL REFERENCES partners(id),
    environment  text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    -- What partners see and deduplicate by: the same on every reading and every delivery.
    event_id     text NOT NULL DEFAULT 'evt_' || replace(gen_random_uuid()::text, '-', '')
                 CHECK (event_id ~ '^evt_[0-9a-f]{32}$'),
    type         text NOT NULL CHECK (type IN (
                     'ari_batch.finished', 'booking.confirmed', 'booking.cancelled',
                     'hotel_booking.confirmed', 'hotel_booking.cancelled',
                     'reservation.flagged', 'mapping.paused', 'mapping.resumed')),
    data         jsonb NOT NULL CHECK (jsonb_typeof(data) = 'object'),
    created_at   timestamptz NOT NULL DEFAULT now(),
    -- Set by change_log_stamp() (0012) on the node storing the row.
    xid          xid8 NOT NULL DEFAULT pg_current_xact_id(),
    origin       integer NOT NULL DEFAULT 0,
    PRIMARY KEY (property_id, id)
);
-- A reader's page: one partner and environment in (xid, id) order.
CREATE INDEX event_log_position_idx ON event_log (partner_id, environment, xid, id);
-- The pruning's scan by age, and the metrics' recent window.
CREATE INDEX event_log_created_at_idx ON event_log (created_at);

DO $$
BEGIN
    EXECUTE 'CREATE TRIGGER event_log_stamped BEFORE INSERT ON event_log '
            'FOR EACH ROW EXECUTE FUNCTION change_log_stamp()';
END $$;

-- Per origin, the highest transaction id pruned: a position at or below it is expired (410).
CREATE TABLE event_log_pruned (
    origin       integer PRIMARY KEY,
    through_xid  xid8 NOT NULL,
    pruned_at    timestamptz NOT NULL DEFAULT now()
);

-- GET /bookings (contract 12.1): a partner's bookings of an environment, oldest created first.
-- Locks: bookings, SHARE while the index builds (writes wait; on a large table build it
-- beforehand with CREATE INDEX CONCURRENTLY under this name, and this statement is skipped).
CREATE INDEX IF NOT EXISTS bookings_listing_idx
    ON bookings (partner_id, environment, created_at, id);
