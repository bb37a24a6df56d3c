-- Renders are claimed oldest first: walk them in that order and stop at
-- the first one due, instead of sorting every due render for each claim
-- (a backlog of thousands, a lender's overnight batch, made each claim
-- scan and sort them all).
DROP INDEX renders_due;
CREATE INDEX renders_in_order ON renders (queued_at, id);
