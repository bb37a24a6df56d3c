package account

import (
	"context"
	"time"
)

// OrgAuditEntry is one row of an organization's audit log: one
// org.action event from any service, stored under the event's id.
type OrgAuditEntry struct {
	ID        string
	OrgID     string
	Env       string
	ActorType string
	ActorID   string
	// ActorLabel is the member's email or the key's display prefix.
	ActorLabel string
	ActorRole  string
	Action     string
	Target     string
	Outcome    string
	Details    map[string]any
	IP         string
	At         time.Time
}

// OrgAuditFilter narrows an organization's log. ActorID is a user or key
// id; Action matches as a prefix ("key." is every key action); After is
// the cursor (the (At, ID) of the last entry of the previous page).
type OrgAuditFilter struct {
	OrgID   string
	ActorID string
	Action  string
	Outcome string
	Env     string
	Since   *time.Time
	Until   *time.Time
	Limit   int
	After   *AuditCursor
}

// OrgAuditLog returns one page of a's organization's log, newest first,
// and the cursor of the next page ("" at the end). The route lets owners
// and admins only.
func (d *Dashboard) OrgAuditLog(ctx context.Context, a Actor, f OrgAuditFilter) ([]OrgAuditEntry, string, error) {
	f.OrgID = a.OrgID
	return auditPage(ctx, d.store, f.Limit, func(tx Tx, limit int) ([]OrgAuditEntry, error) {
		f.Limit = limit
		return tx.OrgAuditLog(ctx, f)
	}, func(e OrgAuditEntry) AuditCursor { return AuditCursor{At: e.At, ID: e.ID} })
}
