---- tern: disable-tx ----
-- Email and loanId duplicates are found through their keys (004, 005)
-- now; the indexes on the raw values only cost writes.
DROP INDEX CONCURRENTLY IF EXISTS customers_unique_email;
DROP INDEX CONCURRENTLY IF EXISTS customers_unique_loan;
DROP INDEX CONCURRENTLY IF EXISTS customers_email;
DROP INDEX CONCURRENTLY IF EXISTS customers_loan;
