-- Whether the relay is waiting for a NOTIFY (idle) or draining batch
-- after batch (busy). A writer NOTIFYs only when it reads idle: a NOTIFY
-- takes a cluster-wide lock at commit, held through the WAL flush, so a
-- NOTIFY in every outbox transaction serialised every service's commits.
-- One row; the relay's protocol (relay_idle.go) keeps it safe to skip.
CREATE TABLE outbox_relay (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    idle     boolean NOT NULL
);
-- Idle until a relay says otherwise, so that writers wake one that does
-- not know about this table yet (a rolling upgrade).
INSERT INTO outbox_relay (idle) VALUES (true);
