-- The horizons every gapless log reader pages below (connectivity/logtail/tail.py): the change
-- feed and the event log.

-- name: log_horizons()
-- Each origin's horizon, read on that node: everything of that node below it is final; and its
-- next transaction id: every transaction of that node begun by then is below it
-- (change_feed_horizons(), migration 0013).
SELECT origin, horizon::text AS horizon, next_xid::text AS next_xid
  FROM change_feed_horizons() ORDER BY origin;
