-- 0016_ari_acceptance_order: the acceptance order of an ARI item, in one place. An item's order
-- is its batch's seq x 8192 + its index in the batch: a batch holds at most 5,000 items, so a
-- hotel's later batches, and later items of one batch, always have higher orders. The apply
-- writes it beside every value it stores (the `*_seq` columns, 0003), the dry run finds its
-- batch's changes by it, and GET /ari divides it back into the batch. The queries call these
-- functions instead of writing the arithmetic out; the data and the columns do not change.
-- Locks: none (CREATE FUNCTION).
--
-- Each is an IMMUTABLE SQL function of one expression, which PostgreSQL inlines into the
-- statement that calls it: the plans and the arithmetic (bigint, the integer 8192) are those of
-- the expression written out. Each body uses built-in operators only, so it means the same
-- under any search_path and on any node, whatever order the nodes created the functions in;
-- hence 8192 in each of the four, and in nothing else.
--
-- On Citus the statements reach the workers as deparsed text that may hold the calls (a staging
-- INSERT ... SELECT pushed down to the shards does), so the functions must exist on every
-- node. With the extension in the database (docs/operations.md 6.4: it comes before
-- `db upgrade`), Citus creates each function on the workers as it is created here
-- (citus.create_object_propagation) and records it as a distributed object, which a worker
-- added later receives too. Objects created on the workers within a transaction want it to
-- use one connection per node, as in 0012 and 0013; the setting is a custom one, which plain
-- PostgreSQL accepts and ignores.
SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

-- The order of a batch's first item (index 0): its items' orders are this and the next 8191.
CREATE FUNCTION ari_first_order(batch_seq bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT batch_seq * 8192 $$;

-- The order of the item at `item_index` (from 0) of the batch.
CREATE FUNCTION ari_item_order(batch_seq bigint, item_index bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT batch_seq * 8192 + item_index $$;

-- The batch seq of an order.
CREATE FUNCTION ari_order_batch_seq(item_order bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT item_order / 8192 $$;

-- The item index of an order, within its batch.
CREATE FUNCTION ari_order_item_index(item_order bigint) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT mod(item_order, 8192)::integer $$;
