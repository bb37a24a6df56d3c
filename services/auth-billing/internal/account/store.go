package account

import (
	"context"
	"time"
)

// Org is a client organization.
type Org struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Plan      string    `json:"plan"`
	Version   int64     `json:"-"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
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

	InsertUser(ctx context.Context, u User) error
	UserByEmail(ctx context.Context, email string) (User, error)
	User(ctx context.Context, id string) (User, error)
	// SetTOTP replaces a user's second-factor state.
	SetTOTP(ctx context.Context, userID string, t TOTP) error
	InsertSession(ctx context.Context, s Session) error
	SessionByHash(ctx context.Context, hash []byte) (Session, error)
	DeleteSession(ctx context.Context, hash []byte) error

	Emit(ctx context.Context, c Change) error
}
