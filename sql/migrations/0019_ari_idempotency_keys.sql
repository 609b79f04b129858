-- 0019_ari_idempotency_keys: the `Idempotency-Key` of ARI pushes (contract 12.4). A push sent
-- with a key records it here, in the transaction that stores its batch; a repeat of the key
-- with the same method, path and body gets the first answer (the same batch_id) and stores
-- nothing, one with another path or body is 422 `idempotency_key_reused`.
-- Locks: none on existing tables (a new table and its index).
--
-- Rows live with their batch: distributed by property_id and colocated with ari_batches
-- (connectivity/store/sharding.py), so storing the key and the batch writes one shard and
-- commits in one phase. The primary key therefore holds the property too; a key reused for
-- another hotel is found through ari_idempotency_keys_key_idx, under an advisory lock on the
-- key that the accepting transaction takes first (sql/queries/ari/idempotency.sql).
-- `request_hash`: SHA-256 of the method, the path and the body bytes as sent.
-- `item_count`: for the replayed answer, which repeats the first one.
-- Kept at least 24 hours; `flask --app app ari prune-items` deletes older ones.

CREATE TABLE ari_idempotency_keys (
    property_id      bigint NOT NULL,
    partner_id       bigint NOT NULL REFERENCES partners(id),
    environment      text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    idempotency_key  text NOT NULL CHECK (idempotency_key ~ '^[!-~]{1,255}$'),
    request_hash     bytea NOT NULL CHECK (octet_length(request_hash) = 32),
    batch_id         text NOT NULL,
    item_count       integer NOT NULL CHECK (item_count BETWEEN 1 AND 5000),
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (property_id, partner_id, environment, idempotency_key),
    FOREIGN KEY (property_id, batch_id) REFERENCES ari_batches (property_id, id)
);

-- The key looked up whatever its hotel (a reuse naming another hotel).
CREATE INDEX ari_idempotency_keys_key_idx
    ON ari_idempotency_keys (partner_id, environment, idempotency_key);
-- Pruning, oldest first.
CREATE INDEX ari_idempotency_keys_created_idx ON ari_idempotency_keys (created_at);
