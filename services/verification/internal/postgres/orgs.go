package postgres

import (
	"context"
	"time"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

func (t *txn) SaveOrgSettings(ctx context.Context, o verification.OrgSettings, at time.Time) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO org_settings (org_id, name, review_policy, sla_hours, version, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (org_id) DO UPDATE SET name = EXCLUDED.name, review_policy = EXCLUDED.review_policy,
			sla_hours = EXCLUDED.sla_hours, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at
		WHERE org_settings.version < EXCLUDED.version`,
		o.OrgID, o.Name, o.ReviewPolicy, int(o.SLA/time.Hour), o.Version, at)
	return err
}

func (t *txn) OrgSettings(ctx context.Context, orgID string) (verification.OrgSettings, error) {
	o := verification.DefaultOrgSettings(orgID)
	var hours int
	err := t.tx.QueryRow(ctx, `SELECT name, review_policy, sla_hours, version FROM org_settings WHERE org_id = $1`, orgID).
		Scan(&o.Name, &o.ReviewPolicy, &hours, &o.Version)
	if pgdb.IsNoRows(err) {
		return o, nil
	}
	o.SLA = time.Duration(hours) * time.Hour
	return o, err
}
