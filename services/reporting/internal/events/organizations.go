package events

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// Organization event types this context reads (auth-billing's).
const (
	TypeOrganizationCreated     = "organization.created"
	TypeOrganizationPlanChanged = "organization.plan_changed"
)

// orgChange is the part of auth-billing's organization events this
// context reads: the name and the plan, ordered by version.
type orgChange struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Version int64  `json:"version"`
	Plan    struct {
		ID string `json:"id"`
	} `json:"plan"`
}

// Organizations keeps each organization's name, printed on its reports,
// and plan, which decides whether its branding is shown.
func Organizations(svc *report.Service, within func(pgx.Tx) report.Tx) inbox.Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if e.Type != TypeOrganizationCreated && e.Type != TypeOrganizationPlanChanged {
			return nil
		}
		var d orgChange
		if err := json.Unmarshal(e.Data, &d); err != nil || d.ID == "" || d.Plan.ID == "" {
			return inbox.Permanent(fmt.Errorf("decode %s: id or plan missing (%v)", e.Type, err))
		}
		return svc.OrganizationChanged(ctx, within(tx), report.Organization{ID: d.ID, Name: d.Name, Plan: d.Plan.ID, Version: d.Version})
	}
}
