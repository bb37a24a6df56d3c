package account

import (
	"context"
	"slices"
	"strings"

	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// Review policies: which live results wait for a reviewer before they
// reach the lender.
const (
	ReviewNone    = "NONE"
	ReviewFlagged = "FLAGGED"
	ReviewAll     = "ALL"
)

// ReviewPolicies lists every policy.
var ReviewPolicies = []string{ReviewNone, ReviewFlagged, ReviewAll}

// DefaultSLAHours is an organization's SLA target until an admin sets
// one; MaxSLAHours (30 days) bounds it.
const (
	DefaultSLAHours = 72
	MaxSLAHours     = 720
)

// EventSettingsChanged is published when the review policy or SLA target
// changes.
const EventSettingsChanged = apikey.EventSettingsChanged

func withDefaultSettings(o Org) Org {
	if o.ReviewPolicy == "" {
		o.ReviewPolicy = ReviewNone
	}
	if o.SLAHours == 0 {
		o.SLAHours = DefaultSLAHours
	}
	return o
}

// Settings is a change of an organization's operations settings; a nil
// member is left as it is.
type Settings struct {
	ReviewPolicy *string
	SLAHours     *int
}

// Validate returns every problem with s at once.
func (s Settings) Validate() error {
	var details []apperr.Detail
	if s.ReviewPolicy == nil && s.SLAHours == nil {
		details = append(details, apperr.Detail{Field: "reviewPolicy", Message: "give reviewPolicy or slaHours, or both"})
	}
	if s.ReviewPolicy != nil && !slices.Contains(ReviewPolicies, *s.ReviewPolicy) {
		details = append(details, apperr.Detail{Field: "reviewPolicy", Message: "must be one of " + strings.Join(ReviewPolicies, ", ")})
	}
	if s.SLAHours != nil && (*s.SLAHours < 1 || *s.SLAHours > MaxSLAHours) {
		details = append(details, apperr.Detail{Field: "slaHours", Message: "must be a whole number of hours from 1 to 720"})
	}
	if len(details) > 0 {
		return apperr.Validation(details...)
	}
	return nil
}

// ChangeSettings sets an organization's review policy and SLA target,
// publishes organization.settings_changed and audits the change as made
// by ctx's staff member or the admin token, all in one transaction.
func (s *Service) ChangeSettings(ctx context.Context, orgID string, set Settings) (Org, error) {
	if err := set.Validate(); err != nil {
		return Org{}, err
	}
	if !ids.Valid("org", orgID) {
		return Org{}, apperr.NotFound("Organization")
	}
	var o Org
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		if o, err = tx.Org(ctx, orgID, true); err != nil {
			return err
		}
		before := o
		if set.ReviewPolicy != nil {
			o.ReviewPolicy = *set.ReviewPolicy
		}
		if set.SLAHours != nil {
			o.SLAHours = *set.SLAHours
		}
		if o.ReviewPolicy == before.ReviewPolicy && o.SLAHours == before.SLAHours {
			return nil // nothing changed: no event, nothing to audit
		}
		o.Version, o.UpdatedAt = o.Version+1, s.now().UTC()
		if err := tx.UpdateOrg(ctx, o); err != nil {
			return err
		}
		if err := tx.Emit(ctx, Change{Type: EventSettingsChanged, OrgID: o.ID, Data: StateOf(o)}); err != nil {
			return err
		}
		return tx.Audit(ctx, "org.settings", o.ID, o.ID, map[string]any{
			"reviewPolicy": o.ReviewPolicy, "slaHours": o.SLAHours,
			"previousReviewPolicy": before.ReviewPolicy, "previousSlaHours": before.SLAHours})
	})
	return o, err
}

// MaxOrgPage bounds one page of organizations.
const MaxOrgPage = 200

// Orgs lists limit organizations newest first, after the id after (the
// last of the previous page); the operations console pages through them.
func (s *Service) Orgs(ctx context.Context, after string, limit int) ([]Org, error) {
	var out []Org
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		out, err = tx.Orgs(ctx, after, limit)
		return err
	})
	return out, err
}
