-- PUT /ari and PUT /ari/restrictions store a batch (connectivity/ari/batches.py; its hotel is
-- found first, mapping/find_hotel.sql), and GET /ari/batches/{id} reads its outcome.

-- name: next_batch_seq(property_id)$
-- The hotel's next acceptance number, counted in property_counters (one counter per property,
-- so one shard under Citus): the counter's row lock makes a hotel's concurrent accepts take
-- 1, 2, 3... one after the other, held from here, the accept's last statements, to its commit.
-- A rolled-back accept (or dry run) gives its number back.
INSERT INTO property_counters AS c (property_id, last_batch_seq)
VALUES (:property_id, 1)
ON CONFLICT (property_id) DO UPDATE SET last_batch_seq = c.last_batch_seq + 1
RETURNING last_batch_seq;

-- name: accept_batch(id, seq, partner_id, environment, mapping_id, property_id, hotel_code, kind, items, item_count, sandbox_scenario, delay_seconds)^
-- `delay_seconds`: for X-Sandbox-Scenario delayed_apply, how long after acceptance the batch may
-- apply (`apply_after`, on the database's clock like `received_at`); NULL otherwise. A plain
-- VALUES insert after next_batch_seq rather than one INSERT ... SELECT from the counter: Citus
-- routes this to the hotel's shard; it would pull that one through the coordinator.
INSERT INTO ari_batches (id, seq, partner_id, environment, mapping_id, property_id, hotel_code,
                         kind, items, item_count, sandbox_scenario, apply_after)
VALUES (:id, :seq, :partner_id, :environment, :mapping_id, :property_id, :hotel_code, :kind,
        :items, :item_count, :sandbox_scenario,
        now() + make_interval(secs => CAST(:delay_seconds AS double precision)))
RETURNING id AS batch_id, property_id, status, item_count, apply_after;

-- name: batch_outcome(id, partner_id, environment)^
-- A batch as its partner sees it; another partner's (or environment's) is not there at all.
SELECT id AS batch_id, kind, hotel_code, status, item_count, applied_count, rejected_count,
       rejected, received_at, applied_at, property_id
  FROM ari_batches
 WHERE id = :id AND partner_id = :partner_id AND environment = :environment;
