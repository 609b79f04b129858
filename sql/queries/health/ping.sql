-- name: ping_database()$
SELECT 1;
