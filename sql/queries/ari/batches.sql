-- name: find_mapped_hotel(partner_id, environment, hotel_code)^
-- The caller's mapping of a hotel code, paused or not: a pause hides a property from selling,
-- never from the channel manager that keeps its ARI (contract section 8).
SELECT pp.id AS mapping_id, pp.property_id, pp.hotel_code
  FROM partner_properties pp
 WHERE pp.partner_id = :partner_id AND pp.environment = :environment
   AND pp.hotel_code = :hotel_code;

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
       rejected, received_at, applied_at
  FROM ari_batches
 WHERE id = :id AND partner_id = :partner_id AND environment = :environment;

-- name: batch_hotel(id)$
-- The hotel of a batch known by its id alone (GET /ari/batches; a job enqueued before jobs
-- carried their hotel): under Citus a look at each shard's index on id; every statement after
-- it names the hotel, so runs on one shard.
SELECT property_id FROM ari_batches WHERE id = :id;

-- name: mark_processing(property_id, id)^
-- Committed on its own before the apply, so GET /ari/batches shows the work in hand. No row
-- comes back, and its job has nothing to do, when the batch is finished, or locked: in a group
-- another worker is applying (its jobs all come first in the queue, and each would otherwise
-- wait for that group's commit only to find its batch finished). Should that group roll back,
-- its own job's retry takes the batch again (it is among the oldest waiting), and recovery
-- would requeue it in any case.
UPDATE ari_batches SET status = 'processing', attempts = attempts + 1,
       started_at = statement_timestamp()
 WHERE property_id = :property_id
   AND id = (SELECT id FROM ari_batches
              WHERE property_id = :property_id AND id = :id
                AND status IN ('queued', 'processing')
                FOR UPDATE SKIP LOCKED)
RETURNING property_id, seq;

-- name: try_lock_hotels(property_ids)
-- One transaction at a time applies a hotel's batches, so a hotel's batches take effect in
-- acceptance order however many workers run: a transaction applies only the batches of hotels
-- whose advisory lock it holds. These are taken without waiting, and the ones taken come back:
-- another worker's hotels are left to it. Held to the end of the transaction; the two-key form
-- keeps these locks apart from the one-key migration lock. Ids past 2^31 only share a lock
-- with another hotel.
SELECT property_id
  FROM unnest(CAST(:property_ids AS bigint[])) WITH ORDINALITY AS h(property_id, position)
 WHERE pg_try_advisory_xact_lock(hashtext('connectivity.ari_hotel'),
                                 mod(property_id, 2147483648)::integer)
 ORDER BY position;

-- name: lock_hotel(property_id)^
-- The same lock, waited for: taken first in its transaction (so two workers cannot deadlock on
-- hotels), by a job that found nothing else to do while another worker held its hotel. It then
-- finds what that worker finished.
SELECT pg_advisory_xact_lock(hashtext('connectivity.ari_hotel'),
                             mod(:property_id, 2147483648)::integer) IS NULL AS locked;

-- name: waiting_hotels(property_id, window)
-- The other hotels of the oldest :window waiting batches, by their oldest batch, with how many
-- of those batches each has: the hotels a group tries to take. Wider than a group: the oldest
-- batches may be the ones another worker is applying.
SELECT property_id, count(*) AS batches
  FROM (SELECT property_id, received_at FROM ari_batches
         WHERE status IN ('queued', 'processing') AND property_id <> :property_id
         ORDER BY received_at
         LIMIT :window) AS waiting
 GROUP BY property_id
 ORDER BY min(received_at);

-- name: claim_batches(property_ids, own_property_id, max_batches, max_items)
-- The unfinished batches of the hotels this transaction holds: the own hotel's first (the job's
-- batch is there), then the others oldest first; the first whatever its size, then while the
-- group stays within max_batches and max_items. Each hotel's share is its oldest batches, so
-- its batches take effect in acceptance order. Locked for this transaction, which applies them
-- all and finishes each with its own outcome. A batch taken from `queued` counts an attempt
-- here; one already `processing` was counted by its own job (mark_processing), even when that
-- job waits for its hotel while this group applies the batch. Read after the hotel locks, so
-- it sees what their previous holders finished. A sandbox batch pushed with `delayed_apply`
-- (apply_after in the future) is not taken before its time, nor is any later batch of its hotel:
-- the hotel's batches still take effect in acceptance order.
WITH unfinished AS (
    -- held_back: this batch or an earlier one of its hotel waits for its apply_after (NULL,
    -- not true, for every batch that never had one).
    SELECT id, property_id, seq, item_count,
           bool_or(apply_after > now()) OVER (PARTITION BY property_id ORDER BY seq)
               AS held_back
      FROM ari_batches
     WHERE property_id = ANY(:property_ids) AND status IN ('queued', 'processing')
),
waiting AS (
    -- claimed_at: read here, not in the UPDATE, where Citus allows no function in a CASE.
    SELECT id, row_number() OVER w AS position, sum(item_count) OVER w AS items_up_to,
           statement_timestamp() AS claimed_at
      FROM unfinished
     WHERE held_back IS NOT TRUE
    WINDOW w AS (ORDER BY property_id <> :own_property_id, seq)
     ORDER BY property_id <> :own_property_id, seq
     LIMIT :max_batches
)
UPDATE ari_batches b
   SET status = 'processing',
       attempts = b.attempts + CASE WHEN b.status = 'queued' THEN 1 ELSE 0 END,
       started_at = CASE WHEN b.status = 'queued' THEN w.claimed_at ELSE b.started_at END
  FROM waiting w
 -- (property_ids again: under Citus, only the held hotels' shards are touched)
 WHERE b.property_id = ANY(:property_ids)
   AND b.id = w.id AND (w.position = 1 OR w.items_up_to <= :max_items)
   AND b.status IN ('queued', 'processing')
RETURNING b.id, b.property_id, b.seq, b.kind, b.item_count;

-- name: finish_batches(outcomes, property_ids)!
-- Every batch of a group with its own outcome, in one statement: outcomes is a JSON object
-- {batch id: {"applied_count", "rejected_count", "rejected"}}.
UPDATE ari_batches b
   SET status = CASE WHEN (o.outcome->>'rejected_count')::integer = 0 THEN 'applied'
                     WHEN (o.outcome->>'applied_count')::integer = 0 THEN 'rejected'
                     ELSE 'partially_applied' END,
       applied_count = (o.outcome->>'applied_count')::integer,
       rejected_count = (o.outcome->>'rejected_count')::integer,
       -- The moment the outcome is written, not the transaction's start (now()); the
       -- statement's start rather than clock_timestamp(): Citus refuses volatile functions in
       -- an UPDATE of a distributed table.
       rejected = o.outcome->'rejected', applied_at = statement_timestamp(), failure = NULL
  FROM jsonb_each(:outcomes) AS o(id, outcome)
 -- (property_ids: under Citus, only the group's hotels' shards are touched)
 WHERE b.property_id = ANY(:property_ids)
   AND b.id = o.id;

-- name: batch_unfinished(property_id, id)^
SELECT 1 AS unfinished FROM ari_batches
 WHERE property_id = :property_id AND id = :id AND status IN ('queued', 'processing');

-- name: fail_batch(id, failure)!
-- Processing itself failed, after the job's retries: reported, and left for an operator.
UPDATE ari_batches SET status = 'failed', failure = :failure, applied_at = statement_timestamp()
 WHERE id = :id AND status IN ('queued', 'processing');

-- name: stranded_batches(older_than_seconds, max_count)
-- Unfinished batches old enough that their job should have run: Redis may have lost it, been
-- down when the batch was accepted, or the worker applying it may have died.
SELECT id, property_id
  FROM ari_batches
 WHERE status IN ('queued', 'processing')
   AND coalesce(started_at, received_at) < now() - make_interval(secs => :older_than_seconds)
 ORDER BY received_at
 LIMIT :max_count;

-- name: prune_batch_items(retention_days, max_count)
-- Drops the items of up to max_count finished batches applied more than retention_days ago;
-- status, counts and rejected rows (the outcome GET /ari/batches shows) stay. The oldest are
-- picked without locking them (under Citus a FOR UPDATE must be a router query, on one hotel's
-- shard, and these span every hotel), and the UPDATE checks again that a batch is still
-- unpruned: a second operator's run picking the same batches waits for the first's row locks,
-- then finds them pruned and leaves them, so each batch is pruned once.
UPDATE ari_batches b SET items = '[]'::jsonb, items_pruned_at = now()
 WHERE b.id IN (SELECT id FROM ari_batches
                 WHERE items_pruned_at IS NULL
                   AND status IN ('applied', 'partially_applied', 'rejected')
                   AND applied_at < now() - make_interval(days => :retention_days)
                 ORDER BY applied_at
                 LIMIT :max_count)
   AND b.items_pruned_at IS NULL
RETURNING b.id;
