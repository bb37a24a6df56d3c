-- Optional second factor for dashboard users (TOTP, RFC 6238). The secret
-- is sealed with the TOTP keyring (AES-256-GCM, the user id as associated
-- data); totp_enabled turns it on once the user has confirmed a code;
-- totp_last_step is the last 30-second step a code was accepted for, so
-- a code cannot be used twice.
ALTER TABLE users
    ADD COLUMN totp_secret    bytea,
    ADD COLUMN totp_enabled   boolean NOT NULL DEFAULT false,
    ADD COLUMN totp_last_step bigint  NOT NULL DEFAULT 0;
