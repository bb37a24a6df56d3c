-- Review before release (issue 28): a live result held for operations
-- (status IN_REVIEW) keeps what is held and since when in hold (kind
-- RESULT or UNSAFE_AREA, the outcome the agent submitted), and every
-- reviewer's decision on the address in reviews, oldest first. The
-- partial index serves the review queue, oldest held first.
ALTER TABLE jobs ADD COLUMN hold jsonb;
ALTER TABLE jobs ADD COLUMN held_at timestamptz;
ALTER TABLE jobs ADD COLUMN reviews jsonb NOT NULL DEFAULT '[]';
CREATE INDEX jobs_in_review ON jobs (held_at, address_id) WHERE status = 'IN_REVIEW';
-- A reviewer weighs the agent's record: its visits over the last days.
CREATE INDEX visit_trails_agent ON visit_trails (agent_id, completed_at);
