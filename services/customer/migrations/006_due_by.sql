-- What operations promise for each live address (verification's dueBy,
-- carried by verification.address.updated): shown by the customer read
-- and the status endpoint; null in the sandbox.
ALTER TABLE addresses ADD COLUMN due_by timestamptz;
