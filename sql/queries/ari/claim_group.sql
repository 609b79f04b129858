-- The worker taking a group of batches (connectivity/ari/apply.py, claim_group): the hotels'
-- advisory locks first, then their oldest unfinished batches, claimed under their row locks.

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

-- name: claim_batches(property_ids, own_property_id, own_batch_id, max_batches, max_items)
-- The unfinished batches of the hotels this transaction holds: the own hotel's first (the job's
-- batch is there), then the others oldest first; the first whatever its size, then while the
-- group stays within max_batches and max_items. Each hotel's share is its oldest batches, so
-- its batches take effect in acceptance order. Locked for this transaction, which applies them
-- all and finishes each with its own outcome. Every batch taken counts an attempt here except
-- the job's own (:own_batch_id), which its job counted when it marked it (mark_processing). A
-- batch another job marked `processing` counts too: that job's transaction may have rolled back
-- (its attempt stays counted by the mark) or it may still be waiting for its hotel, and then,
-- finding its batch finished here, gives its unused attempt back (give_back_attempt). Read
-- after the hotel locks, so it sees what their previous holders finished. A sandbox batch pushed with `delayed_apply`
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
       attempts = b.attempts + CASE WHEN b.id = :own_batch_id THEN 0 ELSE 1 END,
       started_at = CASE WHEN b.status = 'queued' THEN w.claimed_at ELSE b.started_at END
  FROM waiting w
 -- (property_ids again: under Citus, only the held hotels' shards are touched)
 WHERE b.property_id = ANY(:property_ids)
   AND b.id = w.id AND (w.position = 1 OR w.items_up_to <= :max_items)
   AND b.status IN ('queued', 'processing')
RETURNING b.id, b.property_id, b.seq, b.kind, b.item_count;

-- name: give_back_attempt(property_id, id)!
-- A job that marked its batch (mark_processing counted an attempt) but never took it in a
-- transaction of its own: another job's group applied it and counted that attempt, or it waits
-- behind a delayed batch. Its own mark was no attempt.
UPDATE ari_batches SET attempts = attempts - 1
 WHERE property_id = :property_id AND id = :id AND attempts > 0;

-- name: batch_unfinished(property_id, id)^
SELECT 1 AS unfinished FROM ari_batches
 WHERE property_id = :property_id AND id = :id AND status IN ('queued', 'processing');
