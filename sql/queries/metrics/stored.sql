-- State read at scrape time for /metrics (connectivity/metrics/stored.py). Every statement here
-- reads a bounded number of rows through an index, whatever the size of the tables.

-- name: unfinished_batches()
-- Through ari_batches_unfinished_idx (partial on exactly these two statuses).
SELECT status, count(*) AS batches,
       extract(epoch FROM clock_timestamp() - min(received_at))::float8 AS oldest_age_seconds
  FROM ari_batches
 WHERE status IN ('queued', 'processing')
 GROUP BY status;

-- name: recently_finished_batches(window_seconds, scan_limit, bounds)
-- Batches finished in the last :window_seconds, looked for among the last :scan_limit accepted
-- (the newest of ari_batches_received_idx; seq is counted per hotel, so it cannot say which
-- batches are the newest of all). apply_bucket / total_bucket: how many of :bounds (ascending
-- seconds) the apply time (started_at -> applied_at) and the time since acceptance
-- (received_at -> applied_at) exceed, so bucket k holds the values <= bounds[k] (Prometheus'
-- `le`); len(bounds) means above them all. A batch that failed before it started has no apply
-- time: its apply_seconds is NULL (not summed) and it is left out of that histogram.
SELECT status, apply_bucket, total_bucket, count(*) AS batches,
       coalesce(sum(apply_seconds), 0)::float8 AS apply_seconds,
       sum(total_seconds)::float8 AS total_seconds
  FROM (SELECT b.status,
               extract(epoch FROM b.applied_at - b.started_at) AS apply_seconds,
               extract(epoch FROM b.applied_at - b.received_at) AS total_seconds
          FROM (SELECT status, started_at, received_at, applied_at FROM ari_batches
                 ORDER BY received_at DESC LIMIT :scan_limit) AS b
         WHERE b.status IN ('applied', 'partially_applied', 'rejected', 'failed')
           AND b.applied_at >= clock_timestamp() - make_interval(secs => :window_seconds)
       ) AS finished
       CROSS JOIN LATERAL (
           SELECT CASE WHEN finished.apply_seconds IS NOT NULL THEN
                      (SELECT count(*) FROM unnest(:bounds::float8[]) AS bound
                        WHERE bound < finished.apply_seconds)::int END AS apply_bucket,
                  (SELECT count(*) FROM unnest(:bounds::float8[]) AS bound
                    WHERE bound < finished.total_seconds)::int AS total_bucket) AS buckets
 GROUP BY status, apply_bucket, total_bucket;

-- name: recently_accepted_batches(window_seconds, scan_limit)^
-- Batches (and their items) accepted in the last :window_seconds, at most the last :scan_limit
-- accepted (ari_batches_received_idx): against the batches finished in the same window, the
-- rate the workers must keep up with.
SELECT count(*) AS batches, coalesce(sum(item_count), 0)::bigint AS items
  FROM (SELECT item_count FROM ari_batches
         WHERE received_at >= clock_timestamp() - make_interval(secs => :window_seconds)
         ORDER BY received_at DESC LIMIT :scan_limit) AS recent;

-- name: open_reconciliation_items()$
-- Through reconciliation_items_open_idx (partial on resolved_at IS NULL).
SELECT count(*) FROM reconciliation_items WHERE resolved_at IS NULL;

-- name: recently_written_events(window_seconds, scan_limit)
-- Events written in the last :window_seconds, by type, at most the last :scan_limit written
-- (event_log_created_at_idx).
SELECT type, count(*) AS events
  FROM (SELECT type FROM event_log
         WHERE created_at >= clock_timestamp() - make_interval(secs => :window_seconds)
         ORDER BY created_at DESC LIMIT :scan_limit) AS recent
 GROUP BY type;

-- name: hotel_booking_receivers()
-- Every partner that receives some hotel's bookings, per environment (reference tables): the
-- unacknowledged gauges list each, at 0 when it has nothing waiting.
SELECT DISTINCT receiver.code AS partner, pp.environment
  FROM partner_properties pp
  JOIN partners receiver ON receiver.id = pp.partner_id
 WHERE pp.receives_bookings;

-- name: unacknowledged_hotel_bookings()
-- Per receiving partner and environment: the hotel bookings (other partners' bookings on its
-- receiving hotels) whose current status it has not acknowledged, and how long the oldest has
-- waited (hotel_acknowledgement_due_since, migration 0031). Reads only those bookings
-- (bookings_unacknowledged_idx per receiving hotel), however many were acknowledged before.
SELECT receiver.code AS partner, pp.environment, count(*) AS bookings,
       extract(epoch FROM clock_timestamp() - min(hotel_acknowledgement_due_since(
           b.hotel_acknowledged_status, b.created_at, b.cancelled_at)))::float8
           AS oldest_age_seconds
  FROM partner_properties pp
  JOIN partners receiver ON receiver.id = pp.partner_id
  JOIN bookings b ON b.property_id = pp.property_id AND b.partner_id <> pp.partner_id
 WHERE pp.receives_bookings AND b.hotel_acknowledged_status IS DISTINCT FROM b.status
 GROUP BY receiver.code, pp.environment;
