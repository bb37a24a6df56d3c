package account

import (
	"context"
	"time"

	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
)

// Org is a client organization.
type Org struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Plan string `json:"plan"`
	// ReviewPolicy (NONE, FLAGGED, ALL) and SLAHours are the operations
	// settings a staff admin sets (ChangeSettings).
	ReviewPolicy string    `json:"reviewPolicy"`
	SLAHours     int       `json:"slaHours"`
	Version      int64     `json:"-"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// Change is a domain event. The store publishes it through the outbox in
// the same transaction as the state it describes.
type Change struct {
	Type  string
	OrgID string
	Env   string
	Data  any
}

// Store is the persistence port of this context.
type Store interface {
	// Atomic runs fn in one transaction.
	Atomic(ctx context.Context, fn func(tx Tx) error) error
}

// Tx is what a use case can do inside a transaction. Methods taking
// forUpdate lock the row until the transaction ends.
type Tx interface {
	InsertOrg(ctx context.Context, o Org) error
	Org(ctx context.Context, id string, forUpdate bool) (Org, error)
	UpdateOrg(ctx context.Context, o Org) error
	// StartPlanPeriod closes the open plan period of org and opens one.
	StartPlanPeriod(ctx context.Context, orgID, plan string, at time.Time) error

	InsertKey(ctx context.Context, k Key) error
	Key(ctx context.Context, orgID, id string, forUpdate bool) (Key, error)
	KeyByHash(ctx context.Context, hash []byte) (Key, error)
	UpdateKey(ctx context.Context, k Key) error
	Keys(ctx context.Context, orgID string) ([]Key, error)

	// InsertUser answers 409 EMAIL_TAKEN for an email that has an account.
	InsertUser(ctx context.Context, u User) error
	UserByEmail(ctx context.Context, email string) (User, error)
	User(ctx context.Context, id string) (User, error)
	// SetTOTP replaces a user's second-factor state.
	SetTOTP(ctx context.Context, userID string, t TOTP) error
	// Users lists an organization's members, oldest first.
	Users(ctx context.Context, orgID string) ([]User, error)
	// UserInOrg returns a member of orgID, locked; another
	// organization's user is not found.
	UserInOrg(ctx context.Context, orgID, id string) (User, error)
	CountOwners(ctx context.Context, orgID string) (int, error)
	SetUserRole(ctx context.Context, id string, role principal.MemberRole) error
	// DeleteUser removes a user and every session of theirs.
	DeleteUser(ctx context.Context, id string) error
	InsertInvitation(ctx context.Context, inv Invitation) error
	InvitationByHash(ctx context.Context, hash []byte, forUpdate bool) (Invitation, error)
	Invitation(ctx context.Context, orgID, id string, forUpdate bool) (Invitation, error)
	// PendingInvitations lists the invitations neither accepted, revoked
	// nor expired at now, newest first.
	PendingInvitations(ctx context.Context, orgID string, now time.Time) ([]Invitation, error)
	// UpdateInvitation saves accepted_at and revoked_at.
	UpdateInvitation(ctx context.Context, inv Invitation) error
	// OrgAudit records a member's or key's action (pkg/orgaudit) of orgID
	// in env in this transaction; OrgAuditLog reads the log the consumer
	// keeps.
	OrgAudit(ctx context.Context, orgID, env string, a orgaudit.Action) error
	OrgAuditLog(ctx context.Context, f OrgAuditFilter) ([]OrgAuditEntry, error)

	InsertSession(ctx context.Context, s Session) error
	// SessionByHash returns a session with its user's current role.
	SessionByHash(ctx context.Context, hash []byte) (Session, error)
	DeleteSession(ctx context.Context, hash []byte) error

	// Orgs lists organizations newest first (ids sort by creation), from
	// the one before the id after (from the newest when "").
	Orgs(ctx context.Context, after string, limit int) ([]Org, error)

	// Staff accounts. InsertStaff answers ErrStaffEmailTaken for a
	// second member with the same email.
	InsertStaff(ctx context.Context, m Member) error
	Member(ctx context.Context, id string, forUpdate bool) (Member, error)
	MemberByEmail(ctx context.Context, email string) (Member, error)
	Members(ctx context.Context) ([]Member, error)
	// UpdateMember saves the password, TOTP state and disabled_at.
	UpdateMember(ctx context.Context, m Member) error
	InsertStaffEnrolment(ctx context.Context, e StaffEnrolment) error
	// StaffEnrolment returns the enrolment of a token hash, locked.
	StaffEnrolment(ctx context.Context, hash []byte) (StaffEnrolment, error)
	UseStaffEnrolment(ctx context.Context, hash []byte, at time.Time) error
	InsertStaffSession(ctx context.Context, s StaffSession) error
	StaffSessionByHash(ctx context.Context, hash []byte) (StaffSession, error)
	DeleteStaffSession(ctx context.Context, hash []byte) error
	// DeleteStaffSessions ends every session of a member.
	DeleteStaffSessions(ctx context.Context, staffID string) error

	// Audit records ctx's caller's action (pkg/staffaudit) in this
	// transaction; AuditLog reads the log the consumer keeps.
	Audit(ctx context.Context, action, target, orgID string, details map[string]any) error
	AuditLog(ctx context.Context, f AuditFilter) ([]AuditEntry, error)

	Emit(ctx context.Context, c Change) error
}
