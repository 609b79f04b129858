-- 0040_search_model_snapshots: the read model's copy kept in the database, so that a model host
-- starting on an empty machine reads one copy and catches up from its position, instead of
-- every hotel's days row by row (availability/read_model/snapshots.py; docs/operations.md 6.5,
-- "Cold start").
-- Locks: none on existing tables (two new tables).
--
-- A snapshot is one header and its chunks, written in one transaction by a host whose copy is
-- whole; a reader takes the newest one of its own format (`format`: a digest of the code that
-- pickles the model, so a deploy that changes it reads no older snapshot). The chunks are
-- zlib-compressed already: EXTERNAL keeps TOAST from compressing them again. `signature`:
-- HMAC-SHA256 of the chunks under a key derived from SECRET_KEY, checked before anything is
-- unpickled. Only the newest snapshot is kept: its writer deletes the older ones.
--
-- Citus: local to the coordinator (connectivity/store/sharding.py), as the migrations' ledger:
-- no node but the coordinator reads it.

CREATE TABLE search_model_snapshots (
    snapshot_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    format      text NOT NULL,
    taken_at    timestamptz NOT NULL DEFAULT now(),
    hotels      integer NOT NULL CHECK (hotels >= 0),
    chunks      integer NOT NULL DEFAULT 0 CHECK (chunks >= 0),
    bytes       bigint NOT NULL DEFAULT 0 CHECK (bytes >= 0),
    signature   bytea
);

CREATE TABLE search_model_snapshot_chunks (
    snapshot_id bigint NOT NULL REFERENCES search_model_snapshots ON DELETE CASCADE,
    chunk       integer NOT NULL CHECK (chunk >= 0),
    data        bytea NOT NULL,
    PRIMARY KEY (snapshot_id, chunk)
);
ALTER TABLE search_model_snapshot_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
