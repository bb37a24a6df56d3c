package verification

import (
	"context"
	"time"
)

// Review policies: which live results operations review before they are
// released to the lender.
const (
	ReviewNone    = "NONE"
	ReviewFlagged = "FLAGGED" // a result carrying any warning or critical flag
	ReviewAll     = "ALL"
)

// DefaultSLA is an organization's SLA target until an admin sets one.
const DefaultSLA = 72 * time.Hour

// OrgSettings is an organization as operations see it, event-carried
// from auth-billing.
type OrgSettings struct {
	OrgID        string
	Name         string
	ReviewPolicy string
	SLA          time.Duration
	// Version is auth-billing's; an older state never overwrites a newer.
	Version int64
}

// DefaultOrgSettings are an organization's settings before auth-billing
// has announced any: today's behaviour, no review, 72 hours.
func DefaultOrgSettings(orgID string) OrgSettings {
	return OrgSettings{OrgID: orgID, ReviewPolicy: ReviewNone, SLA: DefaultSLA}
}

// SaveOrgSettings keeps auth-billing's latest state of an organization.
func (s *Service) SaveOrgSettings(ctx context.Context, tx Tx, o OrgSettings) error {
	if o.ReviewPolicy == "" {
		o.ReviewPolicy = ReviewNone
	}
	if o.SLA <= 0 {
		o.SLA = DefaultSLA
	}
	return tx.SaveOrgSettings(ctx, o, s.now().UTC())
}
