-- Teams: an organization has members, each with a role (owner, admin,
-- developer, viewer; pkg/principal.MemberRole). The users who signed up
-- before roles existed own their organization. A user still belongs to
-- one organization (email stays unique), so an invitation to an email
-- that already has an account cannot be accepted.
ALTER TABLE users
    ADD COLUMN role text NOT NULL DEFAULT 'owner' CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
    ADD COLUMN name text NOT NULL DEFAULT '';
-- Every new user is inserted with an explicit role from now on.
ALTER TABLE users ALTER COLUMN role DROP DEFAULT;
CREATE INDEX users_org ON users (org_id, created_at, id);
CREATE INDEX sessions_user ON sessions (user_id);

-- Invitations by link (there is no mail server): only the token's SHA-256
-- is kept; a link works once (accepted_at) until it expires or an admin
-- revokes it. invited_by is a user id, kept as text: removing the member
-- who invited someone must not rewrite the invitation.
CREATE TABLE invitations (
    id          text PRIMARY KEY,
    org_id      text        NOT NULL REFERENCES organizations (id),
    token_hash  bytea       NOT NULL UNIQUE,
    email       text        NOT NULL,
    role        text        NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
    invited_by  text        NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    accepted_at timestamptz,
    revoked_at  timestamptz
);
CREATE INDEX invitations_org_pending ON invitations (org_id, created_at DESC, id DESC)
    WHERE accepted_at IS NULL AND revoked_at IS NULL;
