-- 0002_ari_storage: inventory and restrictions per room type and date, prices and restrictions
-- per (room type, rate plan, date).
-- Locks: creates new tables only; nothing existing is locked.
--
-- Both day tables lead with (property_id, date): search reads up to 200 properties x a few
-- nights, rates one property x a few weeks, and a booking one room type x its nights; each is one
-- index range per property, and rows written together (a property's dates) stay together.
-- NULL in a value column means "never sent": ARI is a per-field upsert, so a row may hold only
-- the fields a channel manager has set so far.

CREATE TABLE room_type_days (
    property_id          bigint NOT NULL,
    date                 date NOT NULL,
    room_type_id         bigint NOT NULL,
    -- Rooms left to sell. No upper bound here: the ARI push caps what a partner sends, the
    -- database only refuses the impossible (a booking can never take it below zero).
    available            integer CHECK (available >= 0),
    closed               boolean,
    min_stay             smallint CHECK (min_stay BETWEEN 1 AND 365),
    max_stay             smallint CHECK (max_stay BETWEEN 1 AND 365),
    closed_to_arrival    boolean,
    closed_to_departure  boolean,
    updated_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (property_id, date, room_type_id),
    FOREIGN KEY (property_id, room_type_id) REFERENCES room_types (property_id, id)
) WITH (fillfactor = 85);  -- room for HOT updates: bookings decrement `available` in place

CREATE TABLE rate_plan_days (
    property_id          bigint NOT NULL,
    date                 date NOT NULL,
    room_type_id         bigint NOT NULL,
    rate_plan_id         bigint NOT NULL,
    -- Per room and night, in the rate plan's currency.
    rate                 numeric CHECK (rate >= 0),
    single_rate          numeric CHECK (single_rate >= 0),
    extra_adult_rate     numeric CHECK (extra_adult_rate >= 0),
    extra_child_rate     numeric CHECK (extra_child_rate >= 0),
    closed               boolean,
    min_stay             smallint CHECK (min_stay BETWEEN 1 AND 365),
    max_stay             smallint CHECK (max_stay BETWEEN 1 AND 365),
    closed_to_arrival    boolean,
    closed_to_departure  boolean,
    updated_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (property_id, date, room_type_id, rate_plan_id),
    -- Not a key on rate_plan_room_types: a catalogue reload that stops a plan selling a room
    -- type must not fail on, or silently delete, the prices pushed for it. Readers join
    -- rate_plan_room_types to decide what is sold.
    FOREIGN KEY (property_id, room_type_id) REFERENCES room_types (property_id, id),
    FOREIGN KEY (property_id, rate_plan_id) REFERENCES rate_plans (property_id, id)
);
