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
	if f.Limit <= 0 {
		f.Limit = DefaultAuditPage
	}
	want := f.Limit
	f.Limit++ // one more tells whether a next page exists
	var out []AuditEntry
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		out, err = tx.AuditLog(ctx, f)
		return err
	})
	if err != nil || len(out) <= want {
		return out, "", err
	}
	out = out[:want]
	last := out[want-1]
	return out, AuditCursor{At: last.At, ID: last.ID}.Encode(), nil
}
