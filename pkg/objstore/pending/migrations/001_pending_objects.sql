-- Object-store writes that have no database row yet: a service records the
-- key here before it writes the object and deletes it in the transaction
-- that records the object's row. What is left after a grace period was
-- written (or half-written) and never recorded: the sweeper removes it.
CREATE TABLE pending_objects (
    object_key text        PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pending_objects_created_at ON pending_objects (created_at);
