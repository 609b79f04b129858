-- 0001_foundation: partners, API keys, the property catalogue (properties, room types, rate
-- plans), the partners' mappings of hotel / room type / rate plan codes with their distribution
-- state, and FX rates.
-- Locks: creates new tables only; nothing existing is locked.

CREATE TABLE partners (
    id          bigserial PRIMARY KEY,
    code        text NOT NULL UNIQUE CHECK (code ~ '^[A-Za-z0-9._-]{1,64}$'),
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- The plaintext secret is never stored: secret_hash answers bearer checks, signing_secret is
-- the HMAC key encrypted with a key derived from the service's SECRET_KEY.
CREATE TABLE api_keys (
    key_id                 text PRIMARY KEY CHECK (key_id ~ '^(sbx|live)_[A-Za-z0-9]{16,64}$'),
    partner_id             bigint NOT NULL REFERENCES partners(id),
    name                   text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    environment            text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    secret_hash            bytea NOT NULL CHECK (length(secret_hash) = 32),
    signing_secret         bytea NOT NULL,
    scopes                 text[] NOT NULL DEFAULT '{}' CHECK (scopes <@ ARRAY[
                               'ari.read', 'content.read', 'booking.quote', 'booking.write',
                               'booking.read', 'booking.cancel', 'ari.write', 'restriction.write',
                               'reservation.write', 'reservation.cancel']::text[]),
    requires_signature     boolean NOT NULL,
    rate_limit_per_minute  integer NOT NULL CHECK (rate_limit_per_minute BETWEEN 1 AND 100000),
    expires_at             timestamptz,
    revoked_at             timestamptz,
    created_at             timestamptz NOT NULL DEFAULT now(),
    -- The prefix tells the environment; a key whose prefix lies about it cannot be stored.
    CHECK ((environment = 'sandbox') = (key_id LIKE 'sbx\_%'))
);
CREATE INDEX api_keys_partner_idx ON api_keys (partner_id);

CREATE TABLE properties (
    id             bigserial PRIMARY KEY,
    code           text NOT NULL UNIQUE CHECK (code ~ '^[A-Za-z0-9._-]{1,64}$'),
    name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    environment    text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    country        text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
    timezone       text NOT NULL CHECK (length(timezone) BETWEEN 1 AND 64),
    currency       text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    max_child_age  integer NOT NULL CHECK (max_child_age BETWEEN 0 AND 17),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    -- Target of the composite keys below that keep a mapping in its property's environment.
    UNIQUE (id, environment)
);

CREATE TABLE room_types (
    id             bigserial PRIMARY KEY,
    property_id    bigint NOT NULL REFERENCES properties(id),
    code           text NOT NULL CHECK (code ~ '^[A-Za-z0-9._-]{1,64}$'),
    name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    max_occupancy  integer NOT NULL CHECK (max_occupancy BETWEEN 1 AND 50),
    UNIQUE (property_id, code),
    UNIQUE (property_id, id)
);

CREATE TABLE rate_plans (
    id                     bigserial PRIMARY KEY,
    property_id            bigint NOT NULL REFERENCES properties(id),
    code                   text NOT NULL CHECK (code ~ '^[A-Za-z0-9._-]{1,64}$'),
    name                   text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    board_type             text NOT NULL CHECK (board_type IN ('RO', 'BB', 'HB', 'FB', 'AI')),
    currency               text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    base_adults            integer NOT NULL CHECK (base_adults BETWEEN 1 AND 20),
    max_adults             integer NOT NULL CHECK (max_adults BETWEEN 1 AND 20),
    max_children           integer NOT NULL CHECK (max_children BETWEEN 0 AND 10),
    max_occupancy          integer NOT NULL CHECK (max_occupancy BETWEEN 1 AND 50),
    allowed_nationalities  text[] NOT NULL DEFAULT '{}',
    blocked_nationalities  text[] NOT NULL DEFAULT '{}',
    cancellation_policy    jsonb NOT NULL CHECK (jsonb_typeof(cancellation_policy) = 'object'),
    UNIQUE (property_id, code),
    UNIQUE (property_id, id),
    CHECK (base_adults <= max_adults),
    CHECK (max_adults <= max_occupancy)
);

-- Which room types a rate plan sells; both must belong to the same property.
CREATE TABLE rate_plan_room_types (
    property_id   bigint NOT NULL,
    rate_plan_id  bigint NOT NULL,
    room_type_id  bigint NOT NULL,
    PRIMARY KEY (rate_plan_id, room_type_id),
    FOREIGN KEY (property_id, rate_plan_id) REFERENCES rate_plans (property_id, id) ON DELETE CASCADE,
    FOREIGN KEY (property_id, room_type_id) REFERENCES room_types (property_id, id) ON DELETE CASCADE
);

-- A partner's mapping of one property: its hotel code and the distribution state. A key sees a
-- property only through a mapping in the key's environment; the composite key keeps the
-- mapping's environment equal to its property's.
CREATE TABLE partner_properties (
    id                   bigserial PRIMARY KEY,
    partner_id           bigint NOT NULL REFERENCES partners(id),
    property_id          bigint NOT NULL,
    environment          text NOT NULL,
    hotel_code           text NOT NULL CHECK (hotel_code ~ '^[^/[:cntrl:]]{1,120}$'),
    distribution_active  boolean NOT NULL,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (property_id, environment) REFERENCES properties (id, environment),
    UNIQUE (partner_id, property_id),
    UNIQUE (partner_id, environment, hotel_code),
    UNIQUE (id, property_id)
);
CREATE INDEX partner_properties_property_idx ON partner_properties (property_id);

CREATE TABLE partner_room_types (
    mapping_id      bigint NOT NULL,
    property_id     bigint NOT NULL,
    room_type_id    bigint NOT NULL,
    room_type_code  text NOT NULL CHECK (room_type_code ~ '^[^/[:cntrl:]]{1,120}$'),
    PRIMARY KEY (mapping_id, room_type_id),
    UNIQUE (mapping_id, room_type_code),
    FOREIGN KEY (mapping_id, property_id) REFERENCES partner_properties (id, property_id) ON DELETE CASCADE,
    FOREIGN KEY (property_id, room_type_id) REFERENCES room_types (property_id, id)
);

CREATE TABLE partner_rate_plans (
    mapping_id      bigint NOT NULL,
    property_id     bigint NOT NULL,
    rate_plan_id    bigint NOT NULL,
    rate_plan_code  text NOT NULL CHECK (rate_plan_code ~ '^[^/[:cntrl:]]{1,120}$'),
    PRIMARY KEY (mapping_id, rate_plan_id),
    UNIQUE (mapping_id, rate_plan_code),
    FOREIGN KEY (mapping_id, property_id) REFERENCES partner_properties (id, property_id) ON DELETE CASCADE,
    FOREIGN KEY (property_id, rate_plan_id) REFERENCES rate_plans (property_id, id)
);

-- quote units of currency per one unit of base.
CREATE TABLE fx_rates (
    base        text NOT NULL CHECK (base ~ '^[A-Z]{3}$'),
    quote       text NOT NULL CHECK (quote ~ '^[A-Z]{3}$'),
    rate        numeric(20, 10) NOT NULL CHECK (rate > 0),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (base, quote),
    CHECK (base <> quote)
);
