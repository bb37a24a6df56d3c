-- The operations console's queue and coverage (issue 28).
--
-- due_by is what operations promise the lender for a live address: its
-- creation plus the organization's SLA target when the job opened. A later
-- change of the target does not move promises already made, so it is
-- stored, not computed. Sandbox jobs have none.
ALTER TABLE jobs ADD COLUMN due_by timestamptz;
UPDATE jobs j SET due_by = j.created_at + make_interval(hours =>
        coalesce((SELECT o.sla_hours FROM org_settings o WHERE o.org_id = j.org_id), 72))
    WHERE j.env = 'live';

-- The state and LGA the queue filters on and coverage groups by, as
-- plain columns (the customer service stores them in the gazetteer's
-- spelling), so that the indexes below can cover them.
ALTER TABLE jobs ADD COLUMN state text GENERATED ALWAYS AS (address ->> 'state') STORED;
ALTER TABLE jobs ADD COLUMN lga text GENERATED ALWAYS AS (coalesce(address ->> 'lga', '')) STORED;

-- Open live work only: the final jobs, which pile up for ever, are never
-- in these indexes. The status list includes IN_REVIEW (review before
-- release) so that the queue's predicate implies the index's.
-- The queue's pages, by promise.
CREATE INDEX jobs_open_live_due ON jobs (due_by, address_id)
    WHERE env = 'live' AND status IN ('PENDING', 'ASSIGNED', 'IN_PROGRESS', 'IN_REVIEW');
-- Coverage: an index-only scan groups them by area.
CREATE INDEX jobs_open_live_area ON jobs (state, lga, status)
    WHERE env = 'live' AND status IN ('PENDING', 'ASSIGNED', 'IN_PROGRESS', 'IN_REVIEW');

-- Last seen: an agent's latest API call, sign-in or check-in, kept on
-- the agent (at most one write a minute per agent, see TouchAgent).
ALTER TABLE agents ADD COLUMN last_seen_at timestamptz;

-- This week's figures per agent (GET /ops/v1/agents).
CREATE INDEX visit_trails_agent_week ON visit_trails (completed_at, agent_id);
