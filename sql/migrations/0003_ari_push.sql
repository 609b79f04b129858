-- 0003_ari_push: accepted ARI batches, and the acceptance order of every pushed value.
-- Locks: ACCESS EXCLUSIVE on room_type_days and rate_plan_days for the ADD COLUMNs, which are
-- catalogue-only changes (nullable, no default: no table rewrite), so held for milliseconds.
--
-- A batch is stored whole, its items as the validated JSON array, in the transaction that
-- accepts it; Redis only carries the signal to apply it. The worker applies a batch in one
-- transaction that starts by locking its row and ends by recording the outcome, so a batch is
-- applied once however many times its job runs.

CREATE TABLE ari_batches (
    id              text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9-]{1,64}$'),
    -- Acceptance order, across every hotel and both kinds: what "newer" means for a value.
    seq             bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    partner_id      bigint NOT NULL REFERENCES partners(id),
    environment     text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    mapping_id      bigint NOT NULL,
    property_id     bigint NOT NULL,
    -- The partner's hotel code as sent, so the outcome names it even after a remapping.
    hotel_code      text NOT NULL,
    kind            text NOT NULL CHECK (kind IN ('ari', 'restrictions')),
    items           jsonb NOT NULL CHECK (jsonb_typeof(items) = 'array'),
    item_count      integer NOT NULL CHECK (item_count BETWEEN 1 AND 5000),
    status          text NOT NULL DEFAULT 'queued' CHECK (status IN (
                        'queued', 'processing', 'applied', 'partially_applied', 'rejected',
                        'failed')),
    applied_count   integer NOT NULL DEFAULT 0 CHECK (applied_count >= 0),
    rejected_count  integer NOT NULL DEFAULT 0 CHECK (rejected_count >= 0),
    rejected        jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(rejected) = 'array'),
    -- Times the worker started on it; more than one means a retry or a recovery.
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    failure         text,
    received_at     timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    applied_at      timestamptz,
    FOREIGN KEY (mapping_id, property_id) REFERENCES partner_properties (id, property_id),
    CHECK (applied_count + rejected_count <= item_count),
    -- Finished exactly when it has its finishing time; a finished batch accounts for every item
    -- unless processing itself failed.
    CHECK ((status IN ('queued', 'processing')) = (applied_at IS NULL)),
    CHECK (status IN ('queued', 'processing', 'failed')
           OR applied_count + rejected_count = item_count)
);

-- The recovery scan: unfinished batches, oldest first.
CREATE INDEX ari_batches_unfinished_idx ON ari_batches (received_at)
    WHERE status IN ('queued', 'processing');

-- The acceptance order (batch seq x 8192 + item index) of the item that last wrote each value.
-- A value is overwritten only by a newer one, so batches applied late, out of order or twice
-- leave what the newest accepted batch said. NULL: never written by a batch.
ALTER TABLE room_type_days
    ADD COLUMN available_seq            bigint,
    ADD COLUMN closed_seq               bigint,
    ADD COLUMN min_stay_seq             bigint,
    ADD COLUMN max_stay_seq             bigint,
    ADD COLUMN closed_to_arrival_seq    bigint,
    ADD COLUMN closed_to_departure_seq  bigint;

ALTER TABLE rate_plan_days
    ADD COLUMN rate_seq                 bigint,
    ADD COLUMN single_rate_seq          bigint,
    ADD COLUMN extra_adult_rate_seq     bigint,
    ADD COLUMN extra_child_rate_seq     bigint,
    ADD COLUMN closed_seq               bigint,
    ADD COLUMN min_stay_seq             bigint,
    ADD COLUMN max_stay_seq             bigint,
    ADD COLUMN closed_to_arrival_seq    bigint,
    ADD COLUMN closed_to_departure_seq  bigint;
