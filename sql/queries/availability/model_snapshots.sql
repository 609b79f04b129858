-- The read model's snapshots (migration 0040; availability/read_model/snapshots.py): written in
-- one transaction by a host whose copy is whole, read by a host that starts empty.

-- name: snapshot_due(format, older_than_seconds)$
-- Whether a new snapshot is due: none of this format, or the newest taken longer ago than that.
SELECT NOT EXISTS (
    SELECT FROM search_model_snapshots
     WHERE format = :format AND signature IS NOT NULL
       AND taken_at > now() - make_interval(secs => :older_than_seconds::double precision)
) AS due;

-- name: begin_snapshot(format, hotels)$
-- A snapshot's header, sealed by seal_snapshot in the same transaction.
INSERT INTO search_model_snapshots (format, hotels) VALUES (:format, :hotels)
RETURNING snapshot_id;

-- name: put_snapshot_chunk(snapshot_id, chunk, data)!
INSERT INTO search_model_snapshot_chunks (snapshot_id, chunk, data)
VALUES (:snapshot_id, :chunk, :data);

-- name: seal_snapshot(snapshot_id, chunks, bytes, signature)!
-- The header completed, and every older snapshot gone (its chunks with it: ON DELETE CASCADE).
WITH sealed AS (
    UPDATE search_model_snapshots
       SET chunks = :chunks, bytes = :bytes, signature = :signature
     WHERE snapshot_id = :snapshot_id
)
DELETE FROM search_model_snapshots WHERE snapshot_id < :snapshot_id;

-- name: newest_snapshot(format)^
-- The newest sealed snapshot of this format, if any.
SELECT snapshot_id, taken_at, hotels, chunks, bytes, signature
  FROM search_model_snapshots
 WHERE format = :format AND signature IS NOT NULL
 ORDER BY snapshot_id DESC
 LIMIT 1;

-- name: snapshot_chunk(snapshot_id, chunk)^
-- One of its chunks (a reader holds one at a time).
SELECT data FROM search_model_snapshot_chunks
 WHERE snapshot_id = :snapshot_id AND chunk = :chunk;
