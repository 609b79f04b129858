-- 0004_bookings: pull bookings and the claims that make POST /bookings idempotent.
-- Locks: creates new tables only; nothing existing is locked.
--
-- A booking is claimed before it is priced: the first statement of POST /bookings inserts its
-- (partner, environment, partner_reference) into booking_claims with ON CONFLICT DO NOTHING, so a
-- concurrent duplicate waits on the primary key until the first commits or rolls back. The claim
-- names the booking id it will create; the deferred foreign key makes a claim without its booking
-- uncommittable, and the booking's own key back to the claim makes a booking without a claim
-- unstorable: the two exist together or not at all.
-- The reference is unique per partner and environment: a sandbox booking never answers a
-- production request (contract section 4).

CREATE TABLE booking_claims (
    partner_id         bigint NOT NULL REFERENCES partners(id),
    environment        text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    partner_reference  text NOT NULL CHECK (partner_reference ~ '^[A-Za-z0-9._-]{1,120}$'),
    booking_id         bigint NOT NULL UNIQUE,
    PRIMARY KEY (partner_id, environment, partner_reference)
);

CREATE TABLE bookings (
    id                   bigint PRIMARY KEY,
    partner_id           bigint NOT NULL,
    environment          text NOT NULL,
    partner_reference    text NOT NULL,
    confirmation_number  text NOT NULL UNIQUE CHECK (confirmation_number ~ '^PCS-[A-Z0-9]{12}$'),
    -- sha256 of the canonical request: a replay with another body says request_differs.
    request_hash         bytea NOT NULL CHECK (length(request_hash) = 32),
    status               text NOT NULL CHECK (status IN ('confirmed', 'cancelled')),
    mapping_id           bigint NOT NULL,
    property_id          bigint NOT NULL,
    room_type_id         bigint NOT NULL,
    rate_plan_id         bigint NOT NULL,
    -- The partner's codes as they were when it booked: a later remapping does not rename it.
    hotel_code           text NOT NULL,
    room_type_code       text NOT NULL,
    rate_plan_code       text NOT NULL,
    check_in             date NOT NULL,
    check_out            date NOT NULL,
    rooms                integer NOT NULL CHECK (rooms BETWEEN 1 AND 30),
    total_amount         numeric NOT NULL CHECK (total_amount >= 0),
    currency             text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    -- [{"date": "YYYY-MM-DD", "amount": "<decimal string>"}], one per night, in stay order.
    nights               jsonb NOT NULL CHECK (jsonb_typeof(nights) = 'array'),
    -- The policy in force at booking time; an `amount` tier is in policy_currency and converts
    -- with the multiplier used for the booking's prices, so neither a policy nor an FX change
    -- after booking moves the penalty.
    cancellation_policy  jsonb NOT NULL CHECK (jsonb_typeof(cancellation_policy) = 'object'),
    policy_currency      text NOT NULL CHECK (policy_currency ~ '^[A-Z]{3}$'),
    policy_fx_rate       numeric NOT NULL CHECK (policy_fx_rate > 0),
    nationality          text CHECK (nationality ~ '^[A-Z]{2}$'),
    guests               jsonb NOT NULL CHECK (jsonb_typeof(guests) = 'array'),
    contact              jsonb NOT NULL CHECK (jsonb_typeof(contact) = 'object'),
    special_requests     text,
    arrival_time         text CHECK (arrival_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
    created_at           timestamptz NOT NULL DEFAULT now(),
    cancelled_at         timestamptz,
    penalty_amount       numeric,
    cancel_reason        text,
    CHECK (check_out > check_in),
    CHECK (jsonb_array_length(nights) = check_out - check_in),
    -- A cancelled booking has its time and penalty; a confirmed one has neither.
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
    CHECK ((status = 'cancelled') = (penalty_amount IS NOT NULL)),
    CHECK (penalty_amount BETWEEN 0 AND total_amount),
    CHECK (cancel_reason IS NULL OR status = 'cancelled'),
    UNIQUE (partner_id, environment, partner_reference),
    FOREIGN KEY (partner_id, environment, partner_reference)
        REFERENCES booking_claims (partner_id, environment, partner_reference),
    FOREIGN KEY (mapping_id, property_id) REFERENCES partner_properties (id, property_id),
    FOREIGN KEY (property_id, environment) REFERENCES properties (id, environment),
    FOREIGN KEY (property_id, room_type_id) REFERENCES room_types (property_id, id),
    FOREIGN KEY (property_id, rate_plan_id) REFERENCES rate_plans (property_id, id)
);

ALTER TABLE booking_claims
    ADD FOREIGN KEY (booking_id) REFERENCES bookings (id) DEFERRABLE INITIALLY DEFERRED;

CREATE SEQUENCE bookings_id_seq OWNED BY bookings.id;
