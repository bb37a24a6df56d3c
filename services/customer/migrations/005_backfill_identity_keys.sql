-- Fills loan_key and email_key of the customers written before 004, in
-- Go (migrations.go, backfillIdentityKeys), with the very functions the
-- service keys new writes with: SQL's normalize() and lower() follow the
-- server's Unicode tables and collation, which need not agree with Go's.
-- Batches of 1,000 rows in id (creation) order, each its own short
-- transaction. Where customers written before the keys already share one
-- (a duplicate that dodged the old byte-for-byte rule), the oldest keeps
-- it and the others are left without, so the unique index holds; a new
-- customer matching them is still refused, as the oldest matches it.
SELECT 'pgdb: go backfill_identity_keys';
