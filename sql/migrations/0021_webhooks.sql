-- 0021_webhooks: the partners' webhook endpoints and their deliveries (contract 12.3).
-- Locks: none on existing tables (new tables and their indexes).
--
-- An endpoint belongs to a partner and environment; at most 10 live ones per pair, held by a
-- slot number 1..10 unique among the pair's live endpoints (a CHECK and a partial unique index:
-- two creations at once cannot both take the tenth slot). Its secret (`whsec_...`) is sealed
-- like the keys' signing secrets (auth/credentials.py SigningVault; `secret_key_id` names the
-- SECRET_KEY that sealed it, so `keys reencrypt` reseals it too). `log_position` is the
-- endpoint's position in its partner's event log (events/), as a GET /events reader holds one:
-- the dispatcher reads the events after it and advances it in the transaction that stores
-- their deliveries. `failing_since`: the first failed attempt since the last success; an
-- endpoint failing for 5 days is disabled.
--
-- A delivery is one event for one endpoint, created once (primary key), with a copy of the
-- body it sends (the same bytes at every attempt, whatever the log prunes meanwhile).
-- `next_attempt_at` is when it is due while pending; a sender claiming it moves it past the
-- attempt's timeout (a lease: a sender that dies leaves it due again). `claim` counts claims,
-- so that only the sender holding the latest claim records the outcome. `body`: the JSON
-- sent, as text (its bytes are what is signed).
--
-- Citus: both tables distributed by partner_id and colocated with the partner's claims
-- (connectivity/store/sharding.py): every statement of an endpoint names its partner.

CREATE TABLE webhook_endpoints (
    partner_id        bigint NOT NULL REFERENCES partners(id),
    id                text NOT NULL CHECK (id ~ '^we_[A-Za-z0-9]{24}$'),
    environment       text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    slot              smallint NOT NULL CHECK (slot BETWEEN 1 AND 10),
    url               text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2000),
    -- As sent (`["*"]` kept as such), and what they stand for (every type the creating key
    -- could see, for `*`).
    event_types       text[] NOT NULL CHECK (cardinality(event_types) BETWEEN 1 AND 20),
    subscribed_types  text[] NOT NULL CHECK (cardinality(subscribed_types) >= 1),
    description       text CHECK (char_length(description) <= 200),
    secret_sealed     bytea NOT NULL,
    secret_key_id     text NOT NULL CHECK (secret_key_id ~ '^[0-9a-f]{16}$'),
    status            text NOT NULL DEFAULT 'enabled'
                      CHECK (status IN ('enabled', 'disabled', 'deleted')),
    log_position      jsonb NOT NULL,
    failing_since     timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    disabled_at       timestamptz,
    deleted_at        timestamptz,
    PRIMARY KEY (partner_id, id),
    CHECK ((status = 'deleted') = (deleted_at IS NOT NULL))
);

CREATE UNIQUE INDEX webhook_endpoints_slot_idx
    ON webhook_endpoints (partner_id, environment, slot) WHERE status <> 'deleted';
-- The dispatcher's walk over the endpoints to feed.
CREATE INDEX webhook_endpoints_enabled_idx
    ON webhook_endpoints (partner_id, id) WHERE status = 'enabled';
-- Resealing after a SECRET_KEY rotation reads the endpoints another key sealed.
CREATE INDEX webhook_endpoints_sealed_idx ON webhook_endpoints (secret_key_id, partner_id, id);

CREATE TABLE webhook_deliveries (
    partner_id        bigint NOT NULL,
    endpoint_id       text NOT NULL,
    event_id          text NOT NULL CHECK (char_length(event_id) BETWEEN 1 AND 100),
    event_type        text NOT NULL,
    body              text NOT NULL,
    status            text NOT NULL DEFAULT 'pending'
                      CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts          integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    claim             integer NOT NULL DEFAULT 0 CHECK (claim >= 0),
    -- A replay or ping: sent even to a disabled endpoint, once (the claim clears it).
    manual            boolean NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- Ordering of the list, newest first, with a tie-breaker that never repeats.
    seq               bigserial,
    first_attempt_at  timestamptz,
    last_attempt_at   timestamptz,
    last_status_code  integer CHECK (last_status_code BETWEEN 100 AND 599),
    last_error        text CHECK (char_length(last_error) <= 500),
    next_attempt_at   timestamptz,
    PRIMARY KEY (partner_id, endpoint_id, event_id),
    FOREIGN KEY (partner_id, endpoint_id) REFERENCES webhook_endpoints (partner_id, id),
    CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);

-- The senders' claim: the due deliveries, soonest first.
CREATE INDEX webhook_deliveries_due_idx
    ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- GET .../deliveries, newest first, with or without a status.
CREATE INDEX webhook_deliveries_list_idx
    ON webhook_deliveries (partner_id, endpoint_id, seq DESC);
-- Pruning, oldest first.
CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at);
-- /metrics: the deliveries attempted in a recent window.
CREATE INDEX webhook_deliveries_attempted_idx ON webhook_deliveries (last_attempt_at);
