package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/kafkabus"
)

type usageReport struct {
	Month          string `json:"month"`
	Plan           string `json:"plan"`
	RequestsPerDay []struct {
		Date     string `json:"date"`
		Requests int64  `json:"requests"`
	} `json:"requestsPerDay"`
	TotalRequests         int64 `json:"totalRequests"`
	BillableVerifications int64 `json:"billableVerifications"`
	Invoice               struct {
		Currency                             string
		BaseFeeCents, UsageCents, TotalCents int64
		Lines                                []struct {
			Plan                                  string
			Quantity, UnitPriceCents, AmountCents int64
		}
	} `json:"invoice"`
	ProrationRule string `json:"prorationRule"`
}

func publishOutcome(t *testing.T, w *kafka.Writer, org, env, customerID, addressID, status string) {
	t.Helper()
	data, _ := json.Marshal(map[string]any{"customerId": customerID, "addressId": addressID, "status": status, "sequence": time.Now().UnixNano(), "occurredAt": time.Now().UTC()})
	raw, _ := json.Marshal(event.Event{ID: uuid.NewString(), Type: "verification.address.updated", Time: time.Now().UTC(), OrgID: org, Environment: env, Data: data})
	if err := w.WriteMessages(context.Background(), kafka.Message{Topic: P.Bus.Topic(event.TopicVerification), Key: []byte(customerID), Value: raw}); err != nil {
		t.Fatal(err)
	}
}

// billed reports whether auth-billing has charged the address: how a test
// sees that its barrier event was applied (the usage report has counts
// only).
func billed(t *testing.T, addressID string) bool {
	t.Helper()
	c, err := pgx.Connect(context.Background(), P.DatabaseURLs["auth-billing"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var ok bool
	if err := c.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM billable_verifications WHERE address_id = $1)`, addressID).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestLiveVerificationsAreBilledOncePerAddress(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, live := P.NewKey(t, org, "live")
	w := kafkabus.NewWriter(P.Bus)
	defer w.Close()
	// Every event is about one customer, so all go to one partition, in
	// order (the sandbox one too: customer ids are unique across
	// environments, and a wrong charge for it must come before the barrier).
	cus, a1, a2, s1, a3 := "cus_"+uuid.NewString(), "adr_"+uuid.NewString(), "adr_"+uuid.NewString(), "adr_"+uuid.NewString(), "adr_"+uuid.NewString()
	publishOutcome(t, w, org, "live", cus, a1, "ASSIGNED")  // not final: free
	publishOutcome(t, w, org, "live", cus, a1, "VERIFIED")  // billed
	publishOutcome(t, w, org, "live", cus, a1, "VERIFIED")  // same address, new event id: not again
	publishOutcome(t, w, org, "live", cus, a2, "REJECTED")  // billed
	publishOutcome(t, w, org, "test", cus, s1, "VERIFIED")  // sandbox: free
	publishOutcome(t, w, org, "live", cus, a3, "CANCELLED") // not an outcome
	// Barrier: a last billable outcome. Once it is charged, every event
	// before it in the partition has been applied, so a wrong extra charge
	// would already show.
	barrier := "adr_" + uuid.NewString()
	publishOutcome(t, w, org, "live", cus, barrier, "VERIFIED")
	// The barrier first, then the report: a report read before the
	// barrier was charged could miss the outcomes just before it.
	eventually.True(t, 15*time.Second, "the barrier outcome charged", func() bool { return billed(t, barrier) })
	rep := eventually.Value(t, 15*time.Second, "the usage report", func() (usageReport, bool) {
		var rep usageReport
		r := P.API(t, "GET", "/api/v1/billing/usage", live, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("usage: %d %s", r.Status, r.Body)
		}
		r.Decode(t, &rep)
		return rep, rep.TotalRequests >= 1
	})
	if rep.BillableVerifications != 3 || rep.Invoice.UsageCents != 600 || rep.Invoice.Currency != "USD" || rep.Plan != "growth" {
		t.Fatalf("report (a1, a2 and the barrier billed, once each): %+v", rep)
	}
	now := time.Now().UTC()
	days := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1).Day()
	remaining := int64(days - now.Day() + 1) // the org was created today
	if want := (50000*remaining + int64(days)/2) / int64(days); rep.Invoice.BaseFeeCents != want || rep.Invoice.TotalCents != want+600 {
		t.Fatalf("prorated base fee %d, want %d (%d of %d days)", rep.Invoice.BaseFeeCents, want, remaining, days)
	}
	if len(rep.RequestsPerDay) != 1 || rep.RequestsPerDay[0].Date != now.Format(time.DateOnly) || rep.ProrationRule == "" {
		t.Fatalf("requests per day: %+v", rep.RequestsPerDay)
	}
	// The same report for operators.
	admin := P.Admin(t, "GET", "/admin/v1/orgs/"+org+"/usage?month="+now.Format("2006-01"), nil)
	var adm usageReport
	admin.Decode(t, &adm)
	if adm.BillableVerifications != 3 {
		t.Fatalf("admin usage: %s", admin.Body)
	}
	if r := P.API(t, "GET", "/api/v1/billing/usage?month=2026-13", live, nil); r.Status != http.StatusBadRequest {
		t.Fatalf("bad month: %d", r.Status)
	}
}

func TestRequestsPerDayAndLastUsed(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	keyID, key := P.NewKey(t, org, "test")
	for range 7 {
		P.Do(t, reqList(P.GatewayURL, key))
	}
	type keys struct {
		Keys []struct {
			ID         string  `json:"id"`
			LastUsedAt *string `json:"lastUsedAt"`
		} `json:"keys"`
	}
	eventually.Value(t, 10*time.Second, "7 requests and the key's last use", func() (string, bool) {
		var rep usageReport
		P.Admin(t, "GET", "/admin/v1/orgs/"+org+"/usage", nil).Decode(t, &rep)
		var k keys
		P.Admin(t, "GET", "/admin/v1/orgs/"+org+"/keys", nil).Decode(t, &k)
		return fmt.Sprintf("requests %d, keys %+v", rep.TotalRequests, k),
			rep.TotalRequests == 7 && len(k.Keys) == 1 && k.Keys[0].ID == keyID && k.Keys[0].LastUsedAt != nil
	})
}
