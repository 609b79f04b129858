-- The schema as pg_catalog holds it, for the sharding lint (connectivity/store/sharding.py): what
-- Citus will refuse to distribute, found on plain PostgreSQL before any cluster exists.

-- name: schema_tables()
SELECT c.relname AS table_name
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
   AND NOT c.relispartition
 ORDER BY 1;

-- name: unique_keys()
-- Primary keys, unique constraints and unique indexes, with their columns (an expression
-- column is NULL).
SELECT c.relname AS table_name, i.relname AS index_name,
       array_agg(a.attname ORDER BY k.ordinality) AS columns
  FROM pg_index x
  JOIN pg_class c ON c.oid = x.indrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_class i ON i.oid = x.indexrelid
  CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ordinality)
  LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
 WHERE n.nspname = current_schema() AND x.indisunique
   AND k.ordinality <= x.indnkeyatts
 GROUP BY c.relname, i.relname
 ORDER BY 1, 2;

-- name: foreign_keys()
-- Each foreign key with its columns pairwise: referencing[i] references referenced[i].
SELECT con.conname AS constraint_name, c.relname AS table_name, r.relname AS referenced_table,
       array_agg(a.attname ORDER BY k.ordinality) AS columns,
       array_agg(ra.attname ORDER BY k.ordinality) AS referenced_columns
  FROM pg_constraint con
  JOIN pg_class c ON c.oid = con.conrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_class r ON r.oid = con.confrelid
  CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(attnum, refnum, ordinality)
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
  JOIN pg_attribute ra ON ra.attrelid = r.oid AND ra.attnum = k.refnum
 WHERE n.nspname = current_schema() AND con.contype = 'f'
 GROUP BY con.conname, c.relname, r.relname
 ORDER BY 2, 1;

-- name: table_triggers()
SELECT c.relname AS table_name, t.tgname AS trigger_name
  FROM pg_trigger t
  JOIN pg_class c ON c.oid = t.tgrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = current_schema() AND NOT t.tgisinternal
 ORDER BY 1, 2;
