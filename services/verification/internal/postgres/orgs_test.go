package postgres_test

import (
	"testing"
	"time"

	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// An organization's settings follow auth-billing's newest announcement:
// an older one arriving late changes nothing, and an organization never
// announced has today's behaviour (no review, 72 hours).
func TestOrgSettingsKeepTheNewestVersion(t *testing.T) {
	t.Parallel()
	f := setup(t)
	read := func(orgID string) verification.OrgSettings {
		t.Helper()
		var o verification.OrgSettings
		if err := f.store.Atomic(f.ctx, func(tx verification.Tx) (err error) {
			o, err = tx.OrgSettings(f.ctx, orgID)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return o
	}
	save := func(o verification.OrgSettings) {
		t.Helper()
		if err := f.store.Atomic(f.ctx, func(tx verification.Tx) error { return f.svc.SaveOrgSettings(f.ctx, tx, o) }); err != nil {
			t.Fatal(err)
		}
	}
	if o := read("org_never"); o.ReviewPolicy != verification.ReviewNone || o.SLA != 72*time.Hour {
		t.Fatalf("unannounced organization: %+v", o)
	}
	save(verification.OrgSettings{OrgID: "org_a", Name: "Lagos MFB", Version: 1})
	if o := read("org_a"); o.Name != "Lagos MFB" || o.ReviewPolicy != verification.ReviewNone || o.SLA != 72*time.Hour {
		t.Fatalf("announced without settings: %+v", o)
	}
	save(verification.OrgSettings{OrgID: "org_a", Name: "Lagos MFB", ReviewPolicy: verification.ReviewFlagged, SLA: 48 * time.Hour, Version: 3})
	save(verification.OrgSettings{OrgID: "org_a", Name: "Old name", ReviewPolicy: verification.ReviewAll, SLA: 24 * time.Hour, Version: 2})
	if o := read("org_a"); o.Name != "Lagos MFB" || o.ReviewPolicy != verification.ReviewFlagged || o.SLA != 48*time.Hour || o.Version != 3 {
		t.Fatalf("after a late older version: %+v", o)
	}
}
