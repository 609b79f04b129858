-- 0038_confirmation_key: the deployment's key of confirmation numbers (bookings/confirmation.py).
-- Locks: none on existing tables (a new table).
--
-- One row, made once by the first process that books after this migration and never changed:
-- 32 random bytes sealed like the keys' signing secrets (auth/credentials.py SigningVault;
-- `sealed_by` names the SECRET_KEY that sealed it, and `keys reencrypt` reseals it, so a
-- rotation changes its sealing, never the key). `keyed_above`: the last booking id drawn when
-- the key was made; ids up to it keep the public permutation their numbers were made with, and
-- the keyed numbers of later ids can never equal one of those (the module says why).
--
-- Citus: a reference table (connectivity/store/sharding.py); it is read once per process.

CREATE TABLE confirmation_key (
    only_row    boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    sealed      bytea NOT NULL,
    sealed_by   text NOT NULL CHECK (sealed_by ~ '^[0-9a-f]{16}$'),
    keyed_above bigint NOT NULL CHECK (keyed_above >= 0),
    created_at  timestamptz NOT NULL DEFAULT now()
);
