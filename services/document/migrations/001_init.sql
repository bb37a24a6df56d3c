-- The document context's schema starts here. Its tables arrive with the
-- context's own issue as 002_*.sql onwards; this first version only fixes
-- the version table, so a database deployed before then upgrades in place.
SELECT 1;
