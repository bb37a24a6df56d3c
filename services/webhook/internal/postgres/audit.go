package postgres

import (
	"context"
	"maps"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

// AuditOn sets the full (prefixed) name of the org audit topic that
// lenders' actions are recorded on; unset, it is the unprefixed name.
func (s *Store) AuditOn(topic string) { s.auditTopic = topic }

// audit writes ctx's caller's action a to the outbox in tx, extra merged
// into its details.
func (s *Store) audit(ctx context.Context, tx pgx.Tx, a webhook.Audit, extra map[string]any) error {
	details := a.Details
	if len(extra) > 0 {
		details = maps.Clone(a.Details)
		if details == nil {
			details = map[string]any{}
		}
		maps.Copy(details, extra)
	}
	m, err := orgaudit.Message(ctx, s.auditTopic, a.Action, a.Target, orgaudit.Done, details)
	if err != nil {
		return err
	}
	return outbox.Add(ctx, tx, m)
}

// Reveal implements webhook.Repository: the endpoint is read in the
// transaction that records the read.
func (s *Store) Reveal(ctx context.Context, who webhook.Caller, id string, a webhook.Audit) (webhook.Endpoint, error) {
	var e webhook.Endpoint
	err := s.Transact(ctx, func(tx pgx.Tx) (err error) {
		if e, err = s.get(ctx, tx, who, id, false); err != nil {
			return err
		}
		return s.audit(ctx, tx, a, nil)
	})
	return e, err
}
