-- The organization's name from auth-events, printed on its reports ("Prepared
-- for"); empty until an event carrying it arrives.
ALTER TABLE organizations ADD COLUMN name text NOT NULL DEFAULT '';
