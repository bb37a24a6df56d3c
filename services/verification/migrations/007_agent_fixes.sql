-- Every position an agent reports at a check-in or a completion, with the
-- server's time: the next check-in is compared with the last one
-- (IMPOSSIBLE_TRAVEL) and any fix with the last one at another address
-- (an identical fix is SUSPECT_LOCATION). Read newest first per agent.
CREATE TABLE agent_fixes (
    agent_id   text             NOT NULL,
    address_id text             NOT NULL,
    kind       text             NOT NULL CHECK (kind IN ('CHECK_IN', 'COMPLETION')),
    latitude   double precision NOT NULL,
    longitude  double precision NOT NULL,
    accuracy   double precision NOT NULL,
    at         timestamptz      NOT NULL
);
CREATE INDEX agent_fixes_recent ON agent_fixes (agent_id, at DESC);
