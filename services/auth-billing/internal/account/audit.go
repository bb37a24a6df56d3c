package account

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// AuditEntry is one row of the staff audit log: one staff.action event
// from any service, stored under the event's id.
type AuditEntry struct {
	ID        string
	ActorID   string
	ActorName string
	Role      string
	Action    string
	Target    string
	OrgID     string
	Details   map[string]any
	IP        string
	At        time.Time
}

// AuditFilter narrows the audit log. Action matches as a prefix
// ("staff." is every staff-account action). After is the cursor: the
// (At, ID) of the last entry of the previous page.
type AuditFilter struct {
	ActorID string
	Action  string
	OrgID   string
	Since   *time.Time
	Until   *time.Time
	Limit   int
	After   *AuditCursor
}

// AuditCursor is where a page of the log ended (newest first).
type AuditCursor struct {
	At time.Time
	ID string
}

// Audit page sizes.
const (
	DefaultAuditPage = 50
	MaxAuditPage     = 200
)

// Encode makes the opaque cursor string of c.
func (c AuditCursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.At.UTC().Format(time.RFC3339Nano) + "|" + c.ID))
}

var errCursor = apperr.Validation(apperr.Detail{Field: "cursor", Message: "is not a cursor this endpoint returned"})

// DecodeAuditCursor reads a cursor Encode made.
func DecodeAuditCursor(s string) (AuditCursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return AuditCursor{}, errCursor
	}
	at, id, ok := strings.Cut(string(raw), "|")
	t, terr := time.Parse(time.RFC3339Nano, at)
	if !ok || terr != nil || id == "" {
		return AuditCursor{}, errCursor
	}
	return AuditCursor{At: t, ID: id}, nil
}

// AuditLog returns one page of the log, newest first, and the cursor of
// the next page ("" at the end).
func (s *Staff) AuditLog(ctx context.Context, f AuditFilter) ([]AuditEntry, string, error) {
	return auditPage(ctx, s.store, f.Limit, func(tx Tx, limit int) ([]AuditEntry, error) {
		f.Limit = limit
		return tx.AuditLog(ctx, f)
	}, func(e AuditEntry) AuditCursor { return AuditCursor{At: e.At, ID: e.ID} })
}

// auditPage reads one page of an audit log (limit entries, the default
// when 0) through read, which is asked for one more so that the page
// knows whether a next one exists, and returns the next page's cursor
// ("" at the end).
func auditPage[E any](ctx context.Context, store Store, limit int, read func(tx Tx, limit int) ([]E, error), cursor func(E) AuditCursor) ([]E, string, error) {
	if limit <= 0 {
		limit = DefaultAuditPage
	}
	var out []E
	err := store.Atomic(ctx, func(tx Tx) (err error) {
		out, err = read(tx, limit+1)
		return err
	})
	if err != nil || len(out) <= limit {
		return out, "", err
	}
	out = out[:limit]
	return out, cursor(out[limit-1]).Encode(), nil
}
