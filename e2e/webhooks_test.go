package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/kafkatest"
)

// hookReceiver is a lender's webhook receiver on loopback: answer picks
// the status of its nth request; while hang is open every request waits,
// and ended counts the waits that ended (the sender gave up, or hang was
// closed).
type hookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []hookRequest
	answer func(n int) int
	hang   chan struct{}
	ended  int
}

type hookRequest struct {
	header http.Header
	body   []byte
	status int
}

type hookBody struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	CreatedAt   string          `json:"createdAt"`
	Environment string          `json:"environment"`
	Data        json.RawMessage `json:"data"`
}

func newHookReceiver(t *testing.T, answer func(n int) int) *hookReceiver {
	t.Helper()
	h := &hookReceiver{answer: answer}
	if h.answer == nil {
		h.answer = func(int) int { return http.StatusOK }
	}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		status := h.answer(len(h.got) + 1)
		h.got = append(h.got, hookRequest{header: r.Header.Clone(), body: b, status: status})
		hang := h.hang
		h.mu.Unlock()
		if hang != nil {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
			h.mu.Lock()
			h.ended++
			h.mu.Unlock()
		}
		w.WriteHeader(status)
		if status >= 400 { // what a failing receiver says, for the delivery log's excerpt
			_, _ = fmt.Fprintf(w, "receiver says %d: try again later", status)
		}
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookReceiver) requests() []hookRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookRequest(nil), h.got...)
}

// ofType returns the bodies received of type typ, verifying each with
// the Standard Webhooks reference library.
func (h *hookReceiver) ofType(t *testing.T, secret, typ string) []hookBody {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	var out []hookBody
	for _, r := range h.requests() {
		if err := wh.Verify(r.body, r.header); err != nil {
			t.Fatalf("delivery %s does not verify: %v", r.header.Get("webhook-id"), err)
		}
		var b hookBody
		if err := json.Unmarshal(r.body, &b); err != nil {
			t.Fatalf("body %s: %v", r.body, err)
		}
		if b.Type == typ {
			out = append(out, b)
		}
	}
	return out
}

type hookEndpoint struct {
	ID             string   `json:"id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	Enabled        bool     `json:"enabled"`
	DisabledReason *string  `json:"disabledReason"`
	Secret         string   `json:"secret"`
}

type hookDelivery struct {
	ID           string `json:"id"`
	EventID      string `json:"eventId"`
	EventType    string `json:"eventType"`
	Status       string `json:"status"`
	AttemptCount int    `json:"attemptCount"`
	Attempts     []struct {
		Attempt    int    `json:"attempt"`
		StatusCode *int   `json:"statusCode"`
		Trigger    string `json:"trigger"`
		Succeeded  bool   `json:"succeeded"`
	} `json:"attempts"`
}

func registerHook(t *testing.T, key, url string, extra map[string]any) hookEndpoint {
	t.Helper()
	body := map[string]any{"url": url}
	for k, v := range extra {
		body[k] = v
	}
	r := P.API(t, "POST", "/api/v1/webhooks", key, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("register webhook: %d %s", r.Status, r.Body)
	}
	var e hookEndpoint
	r.Decode(t, &e)
	return e
}

func hookDeliveries(t *testing.T, key, endpointID, query string) []hookDelivery {
	t.Helper()
	r := P.API(t, "GET", "/api/v1/webhooks/"+endpointID+"/deliveries"+query, key, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("deliveries: %d %s", r.Status, r.Body)
	}
	var l struct{ Deliveries []hookDelivery }
	r.Decode(t, &l)
	return l.Deliveries
}

// patience bounds a wait for the platform to catch up: it only stops a
// test that would otherwise hang, and measures nothing.
const patience = 45 * time.Second

func TestWebhookEndpointsThroughTheGateway(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "test")
	_, readOnly := P.NewKey(t, org, "test", "kyc:read")
	_, live := P.NewKey(t, org, "live")
	e := registerHook(t, key, "http://127.0.0.1:9/hook", map[string]any{"events": []string{"verification.completed", "verification.rejected"}})
	if !strings.HasPrefix(e.Secret, "whsec_") || len(e.Events) != 2 || !e.Enabled {
		t.Fatalf("registered %+v", e)
	}
	if r := P.API(t, "GET", "/api/v1/webhooks/"+e.ID, readOnly, nil); r.Status != http.StatusOK || strings.Contains(string(r.Body), e.Secret) {
		t.Fatalf("read with kyc:read: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct{ method, path string }{{"POST", "/api/v1/webhooks"}, {"PATCH", "/api/v1/webhooks/" + e.ID},
		{"DELETE", "/api/v1/webhooks/" + e.ID}, {"POST", "/api/v1/webhooks/" + e.ID + "/rotate-secret"}} {
		if r := P.API(t, c.method, c.path, readOnly, map[string]any{}); r.Status != http.StatusForbidden || r.Code() != "INSUFFICIENT_SCOPE" {
			t.Errorf("%s %s with kyc:read: %d %s", c.method, c.path, r.Status, r.Body)
		}
	}
	// Sandbox and live, and other organizations, never see each other's.
	if r := P.API(t, "GET", "/api/v1/webhooks/"+e.ID, live, nil); r.Status != http.StatusNotFound {
		t.Fatalf("live key reads a sandbox endpoint: %d", r.Status)
	}
	if r := P.API(t, "GET", "/api/v1/webhooks/"+e.ID, sandbox(t), nil); r.Status != http.StatusNotFound {
		t.Fatalf("another organization reads it: %d", r.Status)
	}
	if r := P.API(t, "POST", "/api/v1/webhooks", live, map[string]any{"url": "http://hooks.example.com/kyc"}); r.Status != http.StatusBadRequest ||
		r.Code() != "INVALID_WEBHOOK_URL" {
		t.Fatalf("http endpoint for live: %d %s", r.Status, r.Body)
	}
	r := P.API(t, "PATCH", "/api/v1/webhooks/"+e.ID, key, map[string]any{"url": "http://127.0.0.1:10/hook", "description": "Ops"})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "127.0.0.1:10") {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	var list struct{ Webhooks []hookEndpoint }
	P.API(t, "GET", "/api/v1/webhooks", key, nil).Decode(t, &list)
	if len(list.Webhooks) != 1 || list.Webhooks[0].Secret != "" {
		t.Fatalf("list %+v", list)
	}
	if r := P.API(t, "DELETE", "/api/v1/webhooks/"+e.ID, key, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if r := P.API(t, "GET", "/api/v1/webhooks/"+e.ID, key, nil); r.Status != http.StatusNotFound || r.Code() != "NOT_FOUND" {
		t.Fatalf("after delete: %d %s", r.Status, r.Body)
	}
}

// A sandbox customer's verification reaches the lender's receiver as
// signed webhooks: each address transition, then verification.completed
// with the report URL and the evidence; a rejection carries its reason.
func TestWebhookSandboxVerificationIsDelivered(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	rc := newHookReceiver(t, nil)
	e := registerHook(t, key, rc.URL+"/kyc", nil)
	ok := create(t, key, newCustomer(map[string]any{"loanId": "LN-77", "bvn": "22212345678"}))
	bad := create(t, key, newCustomer(map[string]any{"addresses": []map[string]any{{"streetName": "Nowhere Road", "city": "Ikeja",
		"state": "Lagos", "notes": "SANDBOX_REJECT"}}}))
	eventually.True(t, patience, "completed and rejected webhooks", func() bool {
		return len(rc.ofType(t, e.Secret, "verification.completed")) == 1 && len(rc.ofType(t, e.Secret, "verification.rejected")) == 1
	})
	var done struct {
		CustomerID, CustomerName, OverallStatus string
		LoanID, ReportURL                       *string
		Addresses                               []struct {
			ID, Status       string
			Sequence         int64
			OccurredAt       string
			VerificationData struct {
				VerifiedLatitude   *float64
				VerifiedLongitude  *float64
				AgentNotes         string
				Reason             string
				VerificationPhotos []struct{ URL, Tag string }
			}
		}
	}
	b := rc.ofType(t, e.Secret, "verification.completed")[0]
	if err := json.Unmarshal(b.Data, &done); err != nil {
		t.Fatal(err)
	}
	a := done.Addresses[0]
	if done.CustomerID != ok.ID || done.OverallStatus != "VERIFIED" || *done.LoanID != "LN-77" || b.Environment != "test" ||
		done.ReportURL == nil || !strings.HasSuffix(*done.ReportURL, "/api/v1/customers/"+ok.ID+"/report") ||
		a.Status != "VERIFIED" || a.Sequence < 1 || a.OccurredAt == "" || a.VerificationData.VerifiedLatitude == nil ||
		a.VerificationData.AgentNotes == "" || len(a.VerificationData.VerificationPhotos) < 2 {
		t.Fatalf("completed webhook %s", b.Data)
	}
	for _, r := range rc.requests() {
		if strings.Contains(string(r.body), "22212345678") {
			t.Fatal("an unmasked BVN in a webhook")
		}
	}
	var rej struct {
		CustomerID string
		Addresses  []struct{ VerificationData struct{ Reason string } }
	}
	_ = json.Unmarshal(rc.ofType(t, e.Secret, "verification.rejected")[0].Data, &rej)
	if rej.CustomerID != bad.ID || rej.Addresses[0].VerificationData.Reason != "ADDRESS_NOT_FOUND" {
		t.Fatalf("rejected webhook %+v", rej)
	}
	// Every address transition came too, each with a sequence, the last
	// one the address's final status.
	seqs := map[string]int64{}
	for _, u := range rc.ofType(t, e.Secret, "verification.address.updated") {
		var d struct {
			AddressID string
			Sequence  int64
			ReportURL *string
		}
		_ = json.Unmarshal(u.Data, &d)
		if d.ReportURL != nil || d.Sequence < 1 {
			t.Fatalf("address webhook %s", u.Data)
		}
		seqs[d.AddressID] = max(seqs[d.AddressID], d.Sequence)
	}
	if seqs[a.ID] != a.Sequence {
		t.Fatalf("address sequences %v, completed says %d", seqs, a.Sequence)
	}
}

// A receiver failing three times then succeeding gets the event once as
// a success, with four attempts in the log.
func TestWebhookFailingReceiverIsRetried(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	rc := newHookReceiver(t, func(n int) int {
		if n <= 3 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	e := registerHook(t, key, rc.URL, map[string]any{"events": []string{"verification.completed"}})
	create(t, key, newCustomer(nil))
	eventually.True(t, patience, "success", func() bool {
		ds := hookDeliveries(t, key, e.ID, "")
		return len(ds) == 1 && ds[0].Status == "succeeded"
	})
	d := hookDeliveries(t, key, e.ID, "")[0]
	oks := 0
	for _, r := range rc.requests() {
		if r.status == http.StatusOK {
			oks++
		}
	}
	if d.AttemptCount != 4 || len(d.Attempts) != 4 || *d.Attempts[0].StatusCode != 503 || !d.Attempts[3].Succeeded || oks != 1 ||
		len(rc.ofType(t, e.Secret, "verification.completed")) != 4 {
		t.Fatalf("delivery %+v, %d requests", d, len(rc.requests()))
	}
}

// Restarting the webhook service in the middle of a schedule loses
// nothing: the new process resumes it from Postgres.
func TestWebhookScheduleSurvivesARestart(t *testing.T) {
	key := sandbox(t)
	var mu sync.Mutex
	healthy := false
	rc := newHookReceiver(t, func(int) int {
		mu.Lock()
		defer mu.Unlock()
		if healthy {
			return http.StatusOK
		}
		return http.StatusInternalServerError
	})
	e := registerHook(t, key, rc.URL, map[string]any{"events": []string{"verification.completed"}})
	create(t, key, newCustomer(nil))
	eventually.True(t, patience, "a first failed attempt", func() bool { return len(rc.requests()) >= 1 })
	if err := P.Restart(context.Background(), "webhook", func() {
		mu.Lock()
		healthy = true
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, patience, "delivery after the restart", func() bool {
		ds := hookDeliveries(t, key, e.ID, "")
		return len(ds) == 1 && ds[0].Status == "succeeded"
	})
	if d := hookDeliveries(t, key, e.ID, "")[0]; d.AttemptCount < 2 || d.Attempts[0].Succeeded {
		t.Fatalf("delivery %+v", d)
	}
}

// A receiver that hangs holds up only its own organization: another
// organization's event is delivered while every request to it is still
// open, that is before the first of them times out (WEBHOOK_TIMEOUT,
// 15 s, counted from before the other organization's customer exists).
// The bound is the webhook client's own timeout, not a measured latency,
// so a loaded machine does not make it flaky: only a delivery that waited
// for the hanging receiver would fail it.
func TestWebhookHangingReceiverDoesNotDelayAnotherOrganization(t *testing.T) {
	t.Parallel()
	slowKey, fastKey := sandbox(t), sandbox(t)
	slow := newHookReceiver(t, nil)
	slow.hang = make(chan struct{})
	defer close(slow.hang)
	registerHook(t, slowKey, slow.URL, nil)
	for range 5 {
		create(t, slowKey, newCustomer(nil))
	}
	eventually.True(t, patience, "the hanging receiver's requests", func() bool { return len(slow.requests()) >= 4 })
	fast := newHookReceiver(t, nil)
	e := registerHook(t, fastKey, fast.URL, map[string]any{"events": []string{"verification.completed"}})
	start := time.Now()
	create(t, fastKey, newCustomer(nil))
	// ended is read right after the look that finds the delivery: had it
	// waited for a hanging request to time out, ended would be above 0.
	ended := eventually.Value(t, patience, "the other organization's webhook", func() (int, bool) {
		delivered := len(fast.ofType(t, e.Secret, "verification.completed")) == 1
		slow.mu.Lock()
		defer slow.mu.Unlock()
		return slow.ended, delivered
	})
	t.Logf("customer create to webhook beside a hanging receiver: %v (includes the sandbox verification)", time.Since(start))
	if ended != 0 || len(slow.requests()) < 4 {
		t.Fatalf("the other organization's webhook arrived after %d of the hanging receiver's %d requests had timed out", ended, len(slow.requests()))
	}
}

// 410 Gone disables the endpoint and tells its organization on Kafka.
func TestWebhookGoneDisablesTheEndpoint(t *testing.T) {
	t.Parallel()
	events := kafkatest.Follow(t, P.Bus, P.Bus.Topic(event.TopicWebhook))
	key := sandbox(t)
	rc := newHookReceiver(t, func(int) int { return http.StatusGone })
	e := registerHook(t, key, rc.URL, nil)
	if r := P.API(t, "POST", "/api/v1/webhooks/"+e.ID+"/test", key, nil); r.Status != http.StatusAccepted {
		t.Fatalf("test: %d %s", r.Status, r.Body)
	}
	ev := events.WaitFor(func(ev event.Event) bool {
		return ev.Type == "endpoint.disabled" && strings.Contains(string(ev.Data), e.ID)
	}, 30*time.Second)
	if !strings.Contains(string(ev.Data), `"GONE"`) || ev.Environment != "test" {
		t.Fatalf("event %+v %s", ev, ev.Data)
	}
	var got hookEndpoint
	P.API(t, "GET", "/api/v1/webhooks/"+e.ID, key, nil).Decode(t, &got)
	if got.Enabled || got.DisabledReason == nil || *got.DisabledReason != "GONE" {
		t.Fatalf("endpoint %+v", got)
	}
	if b := rc.ofType(t, e.Secret, "webhook.test"); len(b) != 1 || !strings.Contains(string(b[0].Data), e.ID) {
		t.Fatalf("test webhook %v", b)
	}
}

// Rotation: the new secret and the old one both sign for 24 hours; a
// lender back from an outage recovers exactly the deliveries that failed.
func TestWebhookRotationAndRecover(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	var mu sync.Mutex
	down := true
	rc := newHookReceiver(t, func(int) int {
		mu.Lock()
		defer mu.Unlock()
		if down {
			return http.StatusBadGateway
		}
		return http.StatusNoContent
	})
	e := registerHook(t, key, rc.URL, map[string]any{"events": []string{"verification.completed"}})
	since := time.Now().UTC().Add(-time.Second)
	for range 2 {
		create(t, key, newCustomer(nil))
	}
	eventually.True(t, patience, "both exhausted", func() bool { return len(hookDeliveries(t, key, e.ID, "?status=exhausted")) == 2 })
	var rot hookEndpoint
	r := P.API(t, "POST", "/api/v1/webhooks/"+e.ID+"/rotate-secret", key, nil)
	r.Decode(t, &rot)
	if r.Status != http.StatusOK || rot.Secret == e.Secret {
		t.Fatalf("rotate: %d %s", r.Status, r.Body)
	}
	mu.Lock()
	down = false
	before := len(rc.got)
	mu.Unlock()
	r = P.API(t, "POST", "/api/v1/webhooks/"+e.ID+"/recover", key, map[string]any{"since": since.Format(time.RFC3339Nano)})
	if r.Status != http.StatusAccepted || !strings.Contains(string(r.Body), `"recovered":2`) {
		t.Fatalf("recover: %d %s", r.Status, r.Body)
	}
	eventually.True(t, patience, "recovered", func() bool { return len(hookDeliveries(t, key, e.ID, "?status=succeeded")) == 2 })
	resent := rc.requests()[before:]
	if len(resent) != 2 {
		t.Fatalf("%d resent", len(resent))
	}
	for _, s := range []string{e.Secret, rot.Secret} {
		wh, _ := standardwebhooks.NewWebhook(s)
		for _, q := range resent {
			if err := wh.Verify(q.body, q.header); err != nil {
				t.Fatalf("%s: %v", fmt.Sprint(q.header), err)
			}
		}
	}
}
