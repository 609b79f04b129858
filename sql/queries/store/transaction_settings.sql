-- name: settings_for_transaction(statement_timeout, idle_in_transaction_session_timeout)$
-- Behind a transaction-pooling PgBouncer a connection cannot carry startup `options` (PgBouncer
-- refuses them) and a session SET would stay on whichever server connection ran it. So each
-- transaction sets what a direct connection gets at start-up, for itself only (is_local), in
-- one round trip. A NULL timeout keeps the server's own setting.
SELECT set_config('jit', 'off', true),
       set_config('statement_timeout',
                  coalesce(:statement_timeout, current_setting('statement_timeout')), true),
       set_config('idle_in_transaction_session_timeout',
                  coalesce(:idle_in_transaction_session_timeout,
                           current_setting('idle_in_transaction_session_timeout')), true);
