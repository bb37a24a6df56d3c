-- Field-agent sign-in attempts, counted before the code is compared: one
-- row per client address and one per (phone, address) pair, each over a
-- fixed window. Rows whose window ended long ago are pruned as sign-ins
-- go by (window_end index).
CREATE TABLE agent_signin_attempts (
    key        text        PRIMARY KEY,
    attempts   int         NOT NULL,
    window_end timestamptz NOT NULL
);
CREATE INDEX agent_signin_attempts_window ON agent_signin_attempts (window_end);
