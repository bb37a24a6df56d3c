---- tern: disable-tx ----
-- Duplicates compared by key, not byte for byte (issue 31): a loanId is
-- compared by pkg/matchkey.Reference (NFKC, format characters removed,
-- dashes unified, case folded), an email by matchkey.Email. The keys are
-- columns of their own, filled by the service on every write and, for
-- existing rows, by the next migration (in Go, with the same functions);
-- the value the lender sent is still what is stored and shown.
--
-- Outside a transaction, so each index is built CONCURRENTLY, without
-- blocking writes; every statement can run again after a failure (a
-- CONCURRENTLY build that fails leaves an invalid index behind: it is
-- dropped and built again). Adding a nullable column without a default
-- only touches the catalog; lock_timeout keeps it from queueing behind a
-- long transaction and blocking everyone else meanwhile.
SET lock_timeout = '5s';
ALTER TABLE customers ADD COLUMN IF NOT EXISTS loan_key text, ADD COLUMN IF NOT EXISTS email_key text;
RESET lock_timeout;

-- The database's own guarantee behind the duplicate rule, on the keys.
-- Rows without a key yet (all of them until the backfill) are outside.
DROP INDEX CONCURRENTLY IF EXISTS customers_unique_loan_key;
CREATE UNIQUE INDEX CONCURRENTLY customers_unique_loan_key ON customers (org_id, env, loan_key)
    WHERE deleted_at IS NULL AND relog_reason IS NULL AND loan_key IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS customers_unique_email_key;
CREATE UNIQUE INDEX CONCURRENTLY customers_unique_email_key ON customers (org_id, env, email_key)
    WHERE deleted_at IS NULL AND relog_reason IS NULL AND email_key IS NOT NULL;

-- The duplicate lookup: every live customer, relogged ones included.
DROP INDEX CONCURRENTLY IF EXISTS customers_loan_key;
CREATE INDEX CONCURRENTLY customers_loan_key ON customers (org_id, env, loan_key) WHERE deleted_at IS NULL AND loan_key IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS customers_email_key;
CREATE INDEX CONCURRENTLY customers_email_key ON customers (org_id, env, email_key) WHERE deleted_at IS NULL AND email_key IS NOT NULL;
