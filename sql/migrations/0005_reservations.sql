-- 0005_reservations: pushed reservations (POST /reservations, /cancel, /modify), every payload
-- received as a version, the inventory each version took night by night, and the
-- reconciliation items raised where a reservation disagrees with what the service knows.
-- Locks: creates new tables only; nothing existing is locked.

-- One row per (partner, environment, partner_reference): the reference is claimed by whichever
-- delivery comes first (the reservation itself, or a cancel / modify that overtook it).
-- mapping_id, state and received_at are set together once the reservation itself arrives.
CREATE TABLE reservations (
    id                 bigserial PRIMARY KEY,
    partner_id         bigint NOT NULL REFERENCES partners(id),
    environment        text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    partner_reference  text NOT NULL CHECK (partner_reference ~ '^[A-Za-z0-9._-]{1,120}$'),
    status             text NOT NULL CHECK (status IN ('confirmed', 'cancelled', 'modified')),
    mapping_id         bigint,
    property_id        bigint,
    -- The current complete state: the reservation's payload with the stay of the latest modify.
    state              jsonb CHECK (jsonb_typeof(state) = 'object'),
    received_at        timestamptz,
    -- Versions recorded so far; bumped under the row lock, so numbering has no gaps or twins.
    version            integer NOT NULL DEFAULT 0 CHECK (version >= 0),
    -- The service's own penalty (contract 10); null until a cancellation of a known amount.
    penalty_amount     numeric CHECK (penalty_amount >= 0),
    penalty_currency   text CHECK (penalty_currency ~ '^[A-Z]{3}$'),
    -- The partner's own figure (penalty_amount of the cancel), kept as a claim, never applied.
    penalty_claim           numeric CHECK (penalty_claim >= 0),
    penalty_claim_currency  text CHECK (penalty_claim_currency ~ '^[A-Z]{3}$'),
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (partner_id, environment, partner_reference),
    FOREIGN KEY (mapping_id, property_id) REFERENCES partner_properties (id, property_id),
    CHECK ((mapping_id IS NULL) = (property_id IS NULL)
           AND (mapping_id IS NULL) = (state IS NULL)
           AND (mapping_id IS NULL) = (received_at IS NULL)),
    CHECK ((penalty_amount IS NULL) = (penalty_currency IS NULL)),
    CHECK (penalty_amount IS NULL OR status = 'cancelled')
);

-- Every payload received, as received. A redelivery is kept too, pointing at the version it
-- repeats and answered with that version's acknowledgement.
CREATE TABLE reservation_versions (
    reservation_id  bigint NOT NULL REFERENCES reservations(id),
    version         integer NOT NULL CHECK (version >= 1),
    kind            text NOT NULL CHECK (kind IN ('create', 'modify', 'cancel')),
    ack_id          text NOT NULL CHECK (ack_id ~ '^ack_[A-Za-z0-9]{16,64}$'),
    replay_of       integer,
    payload         jsonb NOT NULL CHECK (jsonb_typeof(payload) = 'object'),
    request_id      text,
    received_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (reservation_id, version),
    FOREIGN KEY (reservation_id, replay_of) REFERENCES reservation_versions (reservation_id, version),
    CHECK (replay_of < version)
);
-- An acknowledgement names one original delivery; its redeliveries repeat it.
CREATE UNIQUE INDEX reservation_versions_ack_idx ON reservation_versions (ack_id)
    WHERE replay_of IS NULL;

-- What a version asked of and took from room_type_days, per room type and night. A cancel or
-- a modify gives back exactly `taken` (never the shortfall) and marks the rows released.
CREATE TABLE reservation_nights (
    reservation_id  bigint NOT NULL,
    version         integer NOT NULL,
    property_id     bigint NOT NULL,
    room_type_id    bigint NOT NULL,
    date            date NOT NULL,
    wanted          integer NOT NULL CHECK (wanted >= 1),
    taken           integer NOT NULL CHECK (taken >= 0 AND taken <= wanted),
    released_at     timestamptz,
    PRIMARY KEY (reservation_id, version, room_type_id, date),
    FOREIGN KEY (reservation_id, version) REFERENCES reservation_versions (reservation_id, version),
    FOREIGN KEY (property_id, room_type_id) REFERENCES room_types (property_id, id)
);
-- A reservation never holds the same room type and night twice.
CREATE UNIQUE INDEX reservation_nights_held_idx ON reservation_nights (reservation_id, room_type_id, date)
    WHERE released_at IS NULL;

CREATE TABLE reconciliation_items (
    id              bigserial PRIMARY KEY,
    reservation_id  bigint NOT NULL,
    version         integer NOT NULL,
    code            text NOT NULL CHECK (code IN (
                        'inventory_shortfall', 'orphan_cancellation', 'unknown_modification',
                        'modification_after_cancellation', 'unmapped_room_type',
                        'unmapped_rate_plan', 'nightly_rates_missing', 'nightly_rates_mismatch',
                        'penalty_claim_differs')),
    message         text NOT NULL CHECK (length(message) BETWEEN 1 AND 2000),
    details         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object'),
    created_at      timestamptz NOT NULL DEFAULT now(),
    resolved_at     timestamptz CHECK (resolved_at >= created_at),
    FOREIGN KEY (reservation_id, version) REFERENCES reservation_versions (reservation_id, version)
);
CREATE INDEX reconciliation_items_reservation_idx ON reconciliation_items (reservation_id, version);
CREATE INDEX reconciliation_items_open_idx ON reconciliation_items (id) WHERE resolved_at IS NULL;
