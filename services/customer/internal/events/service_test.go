package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/events"
	"github.com/kycfield/kyc/services/customer/internal/postgres"
	"github.com/kycfield/kyc/services/customer/migrations"
)

// newService is the customer service on a fresh database, as the
// consumers under test apply events to it.
func newService(t *testing.T) (*pgxpool.Pool, *postgres.Store, *customer.Service) {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), outbox.Migration(), inbox.Migration())
	keys, err := keyring.Parse("k1:jSv7ih3Y8m8Zgui3cFjZHBJZGwcPPrL1k2W8ntQftE0=", "k1")
	if err != nil {
		t.Fatal(err)
	}
	store := postgres.New(pool, keys, "customer-events", events.Of)
	return pool, store, customer.NewService(store, time.Now)
}

// as is the context of a request by who's organization's API key, as the
// gateway vouches for it: every change a caller makes is audited, and an
// audit needs an actor.
func as(who customer.Caller) context.Context {
	return principal.With(context.Background(), principal.Principal{Kind: principal.KindAPIKey, OrgID: who.OrgID,
		Env: principal.Env(who.Env), KeyID: "key_test", ClientIP: "203.0.113.9"})
}
