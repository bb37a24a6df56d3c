package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/orgaudit"
)

// A customer created through the gateway is one org.action in the
// customer service's outbox, naming the key and the caller's IP; the same
// request replayed with its Idempotency-Key is answered by the gateway
// and recorded no second time. The action leaves on the org-audit topic
// (the outbox drains: the topic exists).
func TestCreateIsAuditedOnceThroughItsReplay(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	keyID, key := P.NewKey(t, org, "test")
	req := harness.Request{Method: "POST", URL: P.GatewayURL + "/api/v1/customers", Key: key,
		Header: map[string]string{"Idempotency-Key": "audit-once-" + org},
		Body: map[string]any{"firstName": "Ngozi", "lastName": "Okafor", "phone": "+2348031239001", "bvn": "22212345678",
			"addresses": []map[string]any{{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos"}}}}
	first := P.Do(t, req)
	if first.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", first.Status, first.Body)
	}
	var c struct{ ID string }
	first.Decode(t, &c)
	again := P.Do(t, req)
	if again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %v %s", again.Status, again.Header, again.Body)
	}

	db, err := pgx.Connect(context.Background(), P.DatabaseURLs["customer"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	rows, err := db.Query(context.Background(), `SELECT payload FROM outbox WHERE event_type = $1 AND msg_key = $2`, orgaudit.Type, org)
	if err != nil {
		t.Fatal(err)
	}
	payloads, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		t.Fatal(err)
	}
	if len(payloads) != 1 {
		t.Fatalf("%d org.action events for the create and its replay, want 1", len(payloads))
	}
	var e event.Event
	var a orgaudit.Action
	if err := json.Unmarshal(payloads[0], &e); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(e.Data, &a); err != nil {
		t.Fatal(err)
	}
	if e.OrgID != org || e.Environment != "test" || a.ActorType != orgaudit.ActorKey || a.ActorID != keyID || a.MemberRole != "" ||
		a.Action != "customer.create" || a.Target != c.ID || a.Outcome != orgaudit.Done || a.IP == "" {
		t.Fatalf("org.action %s %+v", e.OrgID, a)
	}
	outboxDrained(t, "customer", org)
}
