-- The status counters in slots. Every address transition that moves a
-- customer's status moved the same two customer_counts rows of its
-- organization and environment, so concurrent consumers queued on those
-- rows until each committed (most of the busiest statement's time was
-- that wait: BENCHMARKS §18m). A transition now adds its -1 and +1 to one
-- of a few slot rows chosen by the customer's id, and a status's count is
-- its customer_counts row (kept for the rows written before this
-- migration and by replicas not yet upgraded) plus the sum of its slots.
-- A slot alone means nothing and may be negative; only the sum is a
-- count, so which slot a change lands in never affects exactness.
--
-- 'ALL' stays in customer_counts, one row: the plan's record limit is
-- checked and raised on it in one locked statement, and only creations
-- and deletions touch it, not transitions.
CREATE TABLE customer_count_slots (
    org_id text     NOT NULL,
    env    text     NOT NULL,
    status text     NOT NULL,
    slot   smallint NOT NULL,
    n      bigint   NOT NULL,
    PRIMARY KEY (org_id, env, status, slot)
);
