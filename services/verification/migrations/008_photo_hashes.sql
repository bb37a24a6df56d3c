-- PHOTO_REUSED: every agent photo's fingerprint, across organizations
-- (operations' evidence; a lender never reads it). The perceptual hash is
-- also split in four 16-bit bands, each indexed: a lookup takes the rows
-- sharing a band (two hashes within 3 bits always share one) and then
-- compares bits, instead of comparing against every photo.
CREATE TABLE photo_hashes (
    photo_id    text PRIMARY KEY,
    address_id  text        NOT NULL,
    customer_id text        NOT NULL,
    org_id      text        NOT NULL,
    env         text        NOT NULL,
    sha256      bytea       NOT NULL,
    phash       bigint,
    band0       int,
    band1       int,
    band2       int,
    band3       int,
    created_at  timestamptz NOT NULL
);
CREATE INDEX photo_hashes_sha256 ON photo_hashes (sha256);
CREATE INDEX photo_hashes_band0 ON photo_hashes (band0) WHERE band0 IS NOT NULL;
CREATE INDEX photo_hashes_band1 ON photo_hashes (band1) WHERE band1 IS NOT NULL;
CREATE INDEX photo_hashes_band2 ON photo_hashes (band2) WHERE band2 IS NOT NULL;
CREATE INDEX photo_hashes_band3 ON photo_hashes (band3) WHERE band3 IS NOT NULL;

-- A photo found to be another address's photo again: which photo,
-- address and organization it matched, for operations (GET
-- /admin/v1/tasks/{addressId}/evidence). Read from either side.
CREATE TABLE photo_matches (
    photo_id           text        NOT NULL,
    address_id         text        NOT NULL,
    org_id             text        NOT NULL,
    env                text        NOT NULL,
    matched_photo_id   text        NOT NULL,
    matched_address_id text        NOT NULL,
    matched_org_id     text        NOT NULL,
    matched_env        text        NOT NULL,
    kind               text        NOT NULL CHECK (kind IN ('SAME_FILE', 'LOOKS_SAME')),
    distance           int         NOT NULL,
    created_at         timestamptz NOT NULL,
    PRIMARY KEY (photo_id, matched_photo_id)
);
CREATE INDEX photo_matches_address ON photo_matches (address_id);
CREATE INDEX photo_matches_matched_address ON photo_matches (matched_address_id);

-- The lender's side: the photo matched another address's when stored
-- (PHOTO_REUSED), without saying which. A constant default adds the
-- column without rewriting the table.
ALTER TABLE photos ADD COLUMN reused boolean NOT NULL DEFAULT false;
