package e2e

import (
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	gateway "github.com/kycfield/kyc/gateway/app"
	"github.com/kycfield/kyc/pkg/eventually"
)

// A gateway allowing one lender-API request in flight, its slot held by
// another organization's document upload whose body is still arriving: a
// create under an Idempotency-Key is answered at once with 503
// SERVICE_OVERLOADED and Retry-After, creates nothing and is not counted
// against the quota;
// the agent app's routes and the health check still answer; once the
// upload ends, the create's retry under the same key creates exactly one
// customer, and a further retry replays it.
func TestShedCreateCreatesNothingAndItsRetryOne(t *testing.T) {
	t.Parallel()
	adminAddr := freeAddr(t)
	gw, stop, err := P.StartGateway(context.Background(), func(c *gateway.Config) {
		c.AdminAddr = adminAddr
		c.APIMaxInFlight, c.APIAdmitWait = 1, 0
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// The holder is another organization, so that its own quota count
	// (made just after it took the slot) is not in the bank's.
	_, holderKey := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	_, key := P.NewKey(t, P.NewOrg(t, "growth"), "test") // a capped plan: every counted request shows in RateLimit-Remaining
	holder := P.API(t, "POST", "/api/v1/customers", holderKey, newCustomer(nil))
	if holder.Status != http.StatusCreated {
		t.Fatalf("holder: %d %s", holder.Status, holder.Body)
	}
	var c customerView
	holder.Decode(t, &c)
	// The document service hears of a customer by its event.
	eventually.True(t, 20*time.Second, "the holder known to the document service", func() bool {
		return P.API(t, "GET", "/api/v1/customers/"+c.ID+"/documents", holderKey, nil).Status == http.StatusOK
	})

	// The upload takes the only slot and keeps it while its body is open.
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	req, _ := http.NewRequest("POST", gw+"/api/v1/customers/"+c.ID+"/documents", pr)
	req.Header.Set("Authorization", "Bearer "+holderKey)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	held := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			held <- 0
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		held <- resp.StatusCode
	}()
	fw, _ := mw.CreateFormFile("file", "id.png")
	_, _ = fw.Write(smallPNG())
	inFlight := regexp.MustCompile(`(?m)^kyc_gateway_api_in_flight(\{[^}]*\})? 1$`)
	eventually.True(t, 20*time.Second, "the upload holding the gateway's only slot", func() bool {
		resp, err := http.Get("http://" + adminAddr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return inFlight.Match(b)
	})

	remaining := func() int {
		r := P.API(t, "GET", "/api/v1/customers", key, nil) // the shared gateway: not full
		n, err := strconv.Atoi(r.Header.Get("RateLimit-Remaining"))
		if r.Status != http.StatusOK || err != nil {
			t.Fatalf("list: %d %s", r.Status, r.Body)
		}
		return n
	}
	create := func() harness.Response {
		return P.Do(t, harness.Request{Method: "POST", URL: gw + "/api/v1/customers", Key: key,
			Body: newCustomer(map[string]any{"phone": "+2348099900001"}), Header: map[string]string{"Idempotency-Key": "overload-1"}})
	}
	before := remaining()
	shed := create()
	if shed.Status != http.StatusServiceUnavailable || shed.Code() != "SERVICE_OVERLOADED" || shed.Header.Get("Retry-After") == "" ||
		shed.Env.Status || shed.Env.Meta.RequestID == "" {
		t.Fatalf("create while the API is full: %d %s (Retry-After %q)", shed.Status, shed.Body, shed.Header.Get("Retry-After"))
	}
	if after := remaining(); after != before-1 {
		t.Errorf("RateLimit-Remaining went from %d to %d across a shed create and one list, want %d: the shed request was counted", before, after, before-1)
	}
	for _, path := range []string{"/agent/v1/tasks", "/healthz"} {
		if r := P.Do(t, harness.Request{Method: "GET", URL: gw + path}); r.Status == http.StatusServiceUnavailable {
			t.Errorf("GET %s while the API is full: 503 %s", path, r.Body)
		}
	}
	var list struct {
		Customers []customerView `json:"customers"`
	}
	P.API(t, "GET", "/api/v1/customers", key, nil).Decode(t, &list)
	if len(list.Customers) != 0 {
		t.Fatalf("%d customers after the shed create, want none", len(list.Customers))
	}

	_ = mw.WriteField("documentType", "ID_CARD")
	_ = mw.Close()
	_ = pw.Close()
	if st := <-held; st != http.StatusCreated {
		t.Fatalf("the upload holding the slot: %d", st)
	}
	first, again := create(), create()
	if first.Status != http.StatusCreated || again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retries after the slot was freed: %d %s, then %d %s", first.Status, first.Body, again.Status, again.Body)
	}
	var one, two customerView
	first.Decode(t, &one)
	again.Decode(t, &two)
	P.API(t, "GET", "/api/v1/customers", key, nil).Decode(t, &list)
	if one.ID != two.ID || len(list.Customers) != 1 || list.Customers[0].ID != one.ID {
		t.Fatalf("the retries gave %s and %s; %d customers in all, want that one", one.ID, two.ID, len(list.Customers))
	}
}
