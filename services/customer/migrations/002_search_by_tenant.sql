-- Search scoped to the tenant.
--
-- customers_search indexed search_text alone, so its posting lists held
-- every organization's rows: one lender's search for "ngozi okafor"
-- decoded and rechecked every lender's Ngozis before the org filter
-- applied (in a table of 5M rows, 12,500 candidates for 2,500 answers and
-- 90 ms in the index alone). A btree_gin index on (org_id, env,
-- search_text) does not help: its trigram posting lists are still the
-- whole table's, and intersecting them with the organization's own list
-- made the scan slower still (measured in BENCHMARKS.md).
--
-- Here each key is a trigram of search_text hashed together with the
-- organization and environment, so a posting list holds one tenant's rows
-- only: a search costs what the tenant's own data costs, whoever else
-- shares the table. Hash collisions can only add candidates, and the
-- query always rechecks search_text LIKE and org_id/env on the row.
CREATE FUNCTION customer_search_keys(org text, env text, t text) RETURNS bigint[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN ARRAY(SELECT hashtextextended(g, hashtextextended(org || '/' || env, 0)) FROM unnest(show_trgm(t)) g);

-- The keys a row must have to contain term anywhere in its search_text:
-- the term's trigrams (pg_trgm's own word rules, so both sides agree),
-- less those made by padding the term's first and last word, which a
-- longer word in the row need not have. A trigram is padding-made when it
-- disappears once the term is glued between two letters (two different
-- letters, so that no padding trigram survives both); testing for the
-- blank is not enough, as pg_trgm shows a trigram of multibyte letters
-- ("  в" in "иванов") as a hash. Of the rest, only trigrams of three
-- letters or digits are used, and at most one in three, spread along the
-- term: every key costs the index a posting list to decode, and
-- neighbouring trigrams say nearly the same thing ("ngo", "goz", "ozi").
-- A subset only admits more candidates, never loses a match. A term
-- without three letters or digits in a row gets no keys (an empty array,
-- which matches everything): the repository then searches without them.
CREATE FUNCTION customer_search_pattern(org text, env text, term text) RETURNS bigint[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    WITH inner_trigrams AS (
        SELECT g, row_number() OVER (ORDER BY strpos(term, g), g) - 1 AS i, count(*) OVER () AS n
          FROM unnest(show_trgm(term)) g
         WHERE strpos(g, ' ') = 0
           AND g = ANY (show_trgm('x' || term || 'x')) AND g = ANY (show_trgm('y' || term || 'y'))
    )
    SELECT ARRAY(SELECT hashtextextended(g, hashtextextended(org || '/' || env, 0)) FROM inner_trigrams WHERE i % 3 = 0 OR i = n - 1);
END;

-- The build keeps the keys in memory until maintenance_work_mem is full:
-- for 5M customers here it took 23 minutes with the default 64 MB, 13
-- with 256 MB and 2 with 512 MB. The migration runs in a transaction of
-- its own, so LOCAL.
SET LOCAL maintenance_work_mem = '512MB';
CREATE INDEX customers_search_tenant ON customers USING gin (customer_search_keys(org_id, env, search_text)) WHERE deleted_at IS NULL;
DROP INDEX customers_search;
