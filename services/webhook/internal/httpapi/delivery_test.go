package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/services/webhook/internal/dispatch"
	"github.com/kycfield/kyc/services/webhook/internal/httpapi"
	"github.com/kycfield/kyc/services/webhook/internal/signing"
	"github.com/kycfield/kyc/services/webhook/internal/webhook"
)

type body struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	CreatedAt   string          `json:"createdAt"`
	Environment string          `json:"environment"`
	Data        json.RawMessage `json:"data"`
}

func parse(t *testing.T, r received) body {
	t.Helper()
	var b body
	if err := json.Unmarshal(r.body, &b); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	return b
}

// elevenDigits finds a BVN or NIN standing alone (as a JSON string or
// number), not a run of digits inside a hex id such as cus_01a20a10186079789ca…
var elevenDigits = regexp.MustCompile(`(^|[^0-9A-Za-z_])[0-9]{11}([^0-9A-Za-z_]|$)`)

// Every delivery verifies with the Standard Webhooks reference library; a
// tampered body or an old timestamp does not. The payloads carry what a
// lender needs and nothing it must not see.
func TestVerificationEventsAreDeliveredSigned(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	rc := newReceiver(t, nil)
	// The two kinds this test is about (address.verified, the stage
	// event the update also makes, has its own tests).
	e := f.endpoint(who, rc.URL+"/kyc", map[string]any{"events": []string{"verification.address.updated", "verification.completed"}})
	only := newReceiver(t, nil)
	f.endpoint(who, only.URL, map[string]any{"events": []string{"verification.completed"}})
	cus, adr := ids.New("cus"), ids.New("adr")
	up := f.publish(who, "verification.address.updated", addressUpdated(cus, adr, 3))
	done := f.publish(who, "verification.completed", completed(cus, adr))
	f.publish(newTenant(), "verification.completed", completed(ids.New("cus"), ids.New("adr"))) // someone else's
	eventually.True(t, patience, "two deliveries", func() bool { return len(rc.requests()) == 2 && len(only.requests()) == 1 })
	byType := map[string]received{}
	for _, r := range rc.requests() {
		if err := verify(t, e.Secret, r); err != nil {
			t.Fatalf("delivery does not verify: %v", err)
		}
		tampered := bytes.Replace(r.body, []byte("Okafor"), []byte("Okafot"), 1)
		tampered = bytes.Replace(tampered, []byte(`"VERIFIED"`), []byte(`"REJECTED"`), 1)
		if verify(t, e.Secret, received{header: r.header, body: tampered}) == nil {
			t.Fatal("tampered body verifies")
		}
		if elevenDigits.Match(r.body) {
			t.Fatalf("an 11-digit number in %s", r.body)
		}
		byType[parse(t, r).Type] = r
		if !bytes.Contains(r.body, []byte(`"flagDetails":[{"code":"SHORT_VISIT","message":"`+flagSentence+`","severity":"warning"}]`)) {
			t.Fatalf("the flags' explanations are not passed on: %s", r.body)
		}
	}
	// A delivery replayed six minutes later fails the timestamp check,
	// even with a valid signature for that time.
	r := byType["verification.completed"]
	old := time.Now().Add(-6 * time.Minute).Unix()
	sig, _ := signing.Signature(r.header.Get("webhook-id"), old, r.body, e.Secret)
	h := r.header.Clone()
	h.Set("webhook-timestamp", strconv.FormatInt(old, 10))
	h.Set("webhook-signature", sig)
	if verify(t, e.Secret, received{header: h, body: r.body}) == nil {
		t.Fatal("old timestamp verifies")
	}

	b := parse(t, byType["verification.completed"])
	if b.ID != done.ID || b.Environment != "test" || r.header.Get("webhook-id") != done.ID || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("completed body %+v headers %v", b, r.header)
	}
	var st struct {
		CustomerID, CustomerName, OverallStatus string
		LoanID, ReportURL                       *string
		Addresses                               []struct {
			ID, Status       string
			Sequence         int64
			OccurredAt       string
			VerificationData struct {
				VerifiedLatitude   float64
				AgentNotes         string
				VerificationPhotos []struct{ URL, Tag string }
			}
		}
	}
	if err := json.Unmarshal(b.Data, &st); err != nil {
		t.Fatal(err)
	}
	a := st.Addresses[0]
	if st.CustomerID != cus || st.CustomerName != "Ngozi Okafor" || st.OverallStatus != "VERIFIED" || *st.LoanID != "LN-1" ||
		st.ReportURL == nil || *st.ReportURL != "https://api.example.com/api/v1/customers/"+cus+"/report" ||
		a.ID != adr || a.Sequence != 3 || a.OccurredAt == "" || a.VerificationData.VerifiedLatitude != 6.4281 ||
		a.VerificationData.AgentNotes == "" || a.VerificationData.VerificationPhotos[0].Tag != "building_front" {
		t.Fatalf("completed data %s", b.Data)
	}
	u := parse(t, byType["verification.address.updated"])
	var ud map[string]any
	_ = json.Unmarshal(u.Data, &ud)
	if u.ID != up.ID || ud["sequence"] != 3.0 || ud["addressId"] != adr || ud["reportUrl"] != nil || ud["occurredAt"] == nil {
		t.Fatalf("address data %s", u.Data)
	}
	// Replaying the event (Kafka redelivers) schedules nothing new.
	if err := f.consumer.Apply(context.Background(), done); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, patience, "both logged as succeeded", func() bool {
		return len(f.deliveries(who, e.ID, "?status=succeeded").Deliveries) == 2
	})
	if l := f.deliveries(who, e.ID, ""); len(l.Deliveries) != 2 {
		t.Fatalf("log %+v", l)
	}
}

// A receiver failing three times, then succeeding, gets the event as one
// success after four attempts, all in the log.
func TestFailingReceiverIsRetriedUntilItSucceeds(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	rc := newReceiver(t, func(n int, _ []byte) int {
		if n <= 3 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	e := f.endpoint(who, rc.URL, nil)
	f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	var d httpapi.Delivery
	eventually.True(t, patience, "success", func() bool {
		l := f.deliveries(who, e.ID, "")
		d = l.Deliveries[0]
		return d.Status == webhook.StatusSucceeded
	})
	got := rc.requests()
	ok := 0
	for _, r := range got {
		if r.status == http.StatusOK {
			ok++
		}
		if r.header.Get("webhook-id") != got[0].header.Get("webhook-id") || !bytes.Equal(r.body, got[0].body) {
			t.Fatal("a retry changed the id or the body")
		}
	}
	for _, r := range got {
		if err := verify(t, e.Secret, r); err != nil {
			t.Fatalf("attempt does not verify: %v", err)
		}
	}
	if len(got) != 4 || ok != 1 || d.AttemptCount != 4 || len(d.Attempts) != 4 || d.NextAttemptAt != nil {
		t.Fatalf("%d requests, %d ok, delivery %+v", len(got), ok, d)
	}
	for i, a := range d.Attempts {
		want := http.StatusInternalServerError
		if i == 3 {
			want = http.StatusOK
		}
		if a.Attempt != i+1 || a.StatusCode == nil || *a.StatusCode != want || a.Trigger != "scheduled" || a.Succeeded != (i == 3) ||
			a.ResponseBody != `{"n":`+strconv.Itoa(i+1)+`}` {
			t.Fatalf("attempt %d: %+v", i, a)
		}
	}
}

// Stopping the dispatcher mid-schedule (the process going down) loses
// nothing: a new one resumes the schedule from Postgres.
func TestScheduleSurvivesARestart(t *testing.T) {
	t.Parallel()
	f := setup(t, options{schedule: webhook.Schedule{0, 300 * time.Millisecond, 300 * time.Millisecond, time.Second, 2 * time.Second}})
	who := newTenant()
	healthy := make(chan struct{})
	rc := newReceiver(t, func(int, []byte) int {
		select {
		case <-healthy:
			return http.StatusOK
		default:
			return http.StatusServiceUnavailable
		}
	})
	e := f.endpoint(who, rc.URL, nil)
	f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	eventually.True(t, patience, "a first failure", func() bool { return len(rc.requests()) >= 1 })
	f.stop()
	before := len(rc.requests())
	close(healthy)
	f.start()
	eventually.True(t, patience, "delivery after restart", func() bool {
		return f.deliveries(who, e.ID, "").Deliveries[0].Status == webhook.StatusSucceeded
	})
	d := f.deliveries(who, e.ID, "").Deliveries[0]
	if before < 1 || d.AttemptCount != len(rc.requests()) || len(d.Attempts) != d.AttemptCount || !d.Attempts[len(d.Attempts)-1].Succeeded {
		t.Fatalf("before restart %d requests; after: %d requests, delivery %+v", before, len(rc.requests()), d)
	}
}

// 410 Gone disables the endpoint at once and tells its organization.
func TestGoneDisablesTheEndpoint(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	rc := newReceiver(t, func(int, []byte) int { return http.StatusGone })
	e := f.endpoint(who, rc.URL, nil)
	f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	eventually.True(t, patience, "disabled", func() bool {
		return !decode[httpapi.Endpoint](t, f.call(who, "GET", "/api/v1/webhooks/"+e.ID, nil)).Enabled
	})
	got := decode[httpapi.Endpoint](t, f.call(who, "GET", "/api/v1/webhooks/"+e.ID, nil))
	if got.DisabledReason == nil || *got.DisabledReason != webhook.DisabledGone {
		t.Fatalf("endpoint %+v", got)
	}
	assertDisabledEvent(t, f, e.ID, webhook.DisabledGone)
	// Nothing more goes to it; a test or a retry is refused until it is
	// enabled again.
	f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	if n := len(f.deliveries(who, e.ID, "").Deliveries); n != 1 || len(rc.requests()) != 1 {
		t.Fatalf("%d deliveries, %d requests after disabling", n, len(rc.requests()))
	}
	if r := f.call(who, "POST", "/api/v1/webhooks/"+e.ID+"/test", nil); r.status != http.StatusConflict || r.code() != webhook.CodeEndpointDisabled {
		t.Fatalf("test on a disabled endpoint: %d %s", r.status, r.body)
	}
}

// An endpoint whose every attempt fails for DisableAfter is disabled.
func TestEndpointFailingTooLongIsDisabled(t *testing.T) {
	t.Parallel()
	f := setup(t, options{disableAfter: 200 * time.Millisecond,
		schedule: webhook.Schedule{0, 300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond}})
	who := newTenant()
	rc := newReceiver(t, func(int, []byte) int { return http.StatusBadGateway })
	e := f.endpoint(who, rc.URL, nil)
	f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	eventually.True(t, patience, "disabled", func() bool {
		return !decode[httpapi.Endpoint](t, f.call(who, "GET", "/api/v1/webhooks/"+e.ID, nil)).Enabled
	})
	assertDisabledEvent(t, f, e.ID, webhook.DisabledFailing)
	// Enabling it again resumes the parked delivery.
	rc.mu.Lock()
	rc.answer = func(int, []byte) int { return http.StatusOK }
	rc.mu.Unlock()
	if r := f.call(who, "PATCH", "/api/v1/webhooks/"+e.ID, map[string]any{"enabled": true}); r.status != http.StatusOK {
		t.Fatalf("enable: %d %s", r.status, r.body)
	}
	eventually.True(t, patience, "resumed delivery", func() bool {
		return f.deliveries(who, e.ID, "").Deliveries[0].Status == webhook.StatusSucceeded
	})
}

func assertDisabledEvent(t *testing.T, f *fixture, endpointID, reason string) {
	t.Helper()
	var payload []byte
	if err := f.pool.QueryRow(context.Background(), `SELECT payload FROM outbox WHERE event_type = 'endpoint.disabled'`).Scan(&payload); err != nil {
		t.Fatalf("no endpoint.disabled in the outbox: %v", err)
	}
	var ev struct {
		Environment string
		Data        struct{ EndpointID, Reason string }
	}
	if err := json.Unmarshal(payload, &ev); err != nil || ev.Data.EndpointID != endpointID || ev.Data.Reason != reason || ev.Environment != "test" {
		t.Fatalf("event %s", payload)
	}
}

// After a rotation both secrets sign for the overlap: a receiver still on
// the old secret and one already on the new both verify.
func TestRotationSignsWithBothSecrets(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	rc := newReceiver(t, nil)
	e := f.endpoint(who, rc.URL, nil)
	r := f.call(who, "POST", "/api/v1/webhooks/"+e.ID+"/rotate-secret", nil)
	rot := decode[httpapi.Endpoint](t, r)
	if r.status != http.StatusOK || rot.Secret == e.Secret || !strings.HasPrefix(rot.Secret, "whsec_") || rot.PreviousSecretExpiresAt == nil {
		t.Fatalf("rotate: %d %s", r.status, r.body)
	}
	if r := f.call(who, "POST", "/api/v1/webhooks/"+e.ID+"/test", nil); r.status != http.StatusAccepted {
		t.Fatalf("test: %d %s", r.status, r.body)
	}
	eventually.True(t, patience, "test event", func() bool { return len(rc.requests()) == 1 })
	got := rc.requests()[0]
	if n := len(strings.Fields(got.header.Get("webhook-signature"))); n != 2 {
		t.Fatalf("%d signatures", n)
	}
	for _, s := range []string{e.Secret, rot.Secret} {
		if err := verify(t, s, got); err != nil {
			t.Fatalf("does not verify: %v", err)
		}
	}
	if b := parse(t, got); b.Type != "webhook.test" || !strings.Contains(string(b.Data), e.ID) {
		t.Fatalf("test body %s", got.body)
	}
}

// Recover resends exactly the deliveries that failed since the given
// time: not those that succeeded, not older ones.
func TestRecoverResendsExactlyTheFailedOnes(t *testing.T) {
	t.Parallel()
	f := setup(t, options{schedule: webhook.Schedule{0, 20 * time.Millisecond}})
	who := newTenant()
	down := true
	rc := newReceiver(t, func(_ int, b []byte) int {
		if down && !bytes.Contains(b, []byte("Lucky")) {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	e := f.endpoint(who, rc.URL, nil)
	older := f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	eventually.True(t, patience, "older exhausted", func() bool { return f.deliveries(who, e.ID, "").Deliveries[0].Status == webhook.StatusExhausted })
	since := time.Now().UTC()
	var failed []string
	for range 3 {
		failed = append(failed, f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr"))).ID)
	}
	lucky := completed(ids.New("cus"), ids.New("adr"))
	lucky["customerName"] = "Lucky Day"
	f.publish(who, "verification.completed", lucky)
	eventually.True(t, patience, "failures exhausted", func() bool {
		return len(f.deliveries(who, e.ID, "?status=exhausted").Deliveries) == 4 &&
			len(f.deliveries(who, e.ID, "?status=succeeded").Deliveries) == 1
	})
	rc.mu.Lock()
	down = false
	before := len(rc.got)
	rc.mu.Unlock()
	r := f.call(who, "POST", "/api/v1/webhooks/"+e.ID+"/recover", map[string]any{"since": since.Format(time.RFC3339Nano)})
	if r.status != http.StatusAccepted || decode[struct{ Recovered int }](t, r).Recovered != 3 {
		t.Fatalf("recover: %d %s", r.status, r.body)
	}
	eventually.True(t, patience, "recovered", func() bool { return len(f.deliveries(who, e.ID, "?status=succeeded").Deliveries) == 4 })
	resent := map[string]bool{}
	for _, q := range rc.requests()[before:] {
		resent[q.header.Get("webhook-id")] = true
	}
	if len(resent) != 3 || !resent[failed[0]] || !resent[failed[1]] || !resent[failed[2]] || resent[older.ID] {
		t.Fatalf("resent %v, want %v", resent, failed)
	}
	for _, d := range f.deliveries(who, e.ID, "?status=succeeded").Deliveries {
		if last := d.Attempts[len(d.Attempts)-1]; d.EventID != failed[0] && d.EventID != failed[1] && d.EventID != failed[2] {
			continue
		} else if last.Trigger != "manual" {
			t.Fatalf("recovered attempt %+v", last)
		}
	}
}

// A manual retry resends a delivery now, whatever its status.
func TestRetryResendsOneDelivery(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	rc := newReceiver(t, nil)
	e := f.endpoint(who, rc.URL, nil)
	f.publish(who, "verification.rejected", completed(ids.New("cus"), ids.New("adr")))
	eventually.True(t, patience, "delivered", func() bool { return len(f.deliveries(who, e.ID, "?status=succeeded").Deliveries) == 1 })
	d := f.deliveries(who, e.ID, "?eventType=verification.rejected").Deliveries[0]
	if r := f.call(newTenant(), "POST", "/api/v1/webhooks/"+e.ID+"/deliveries/"+d.ID+"/retry", nil); r.status != http.StatusNotFound {
		t.Fatalf("retry by another organization: %d", r.status)
	}
	if r := f.call(who, "POST", "/api/v1/webhooks/"+e.ID+"/deliveries/"+d.ID+"/retry", nil); r.status != http.StatusAccepted {
		t.Fatalf("retry: %d %s", r.status, r.body)
	}
	eventually.True(t, patience, "resent", func() bool { return len(rc.requests()) == 2 })
	eventually.True(t, patience, "logged", func() bool { return f.deliveries(who, e.ID, "").Deliveries[0].AttemptCount == 2 })
	d = f.deliveries(who, e.ID, "").Deliveries[0]
	if d.Status != webhook.StatusSucceeded || d.Attempts[1].Trigger != "manual" {
		t.Fatalf("after retry %+v", d)
	}
}

// The log pages newest first and filters by type.
func TestDeliveryLogPagesAndFilters(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	rc := newReceiver(t, nil)
	e := f.endpoint(who, rc.URL, map[string]any{"events": []string{"verification.address.updated", "verification.completed"}})
	cus := ids.New("cus")
	for i := range 5 {
		f.publish(who, "verification.address.updated", addressUpdated(cus, ids.New("adr"), i+1))
	}
	f.publish(who, "verification.completed", completed(cus, ids.New("adr")))
	eventually.True(t, patience, "six deliveries", func() bool { return len(rc.requests()) == 6 })
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		l := f.deliveries(who, e.ID, "?limit=4"+cursor)
		for _, d := range l.Deliveries {
			seen[d.ID] = true
		}
		if !l.Pagination.HasNext {
			break
		}
		cursor = "&cursor=" + *l.Pagination.NextCursor
	}
	if len(seen) != 6 {
		t.Fatalf("paged through %d deliveries", len(seen))
	}
	if l := f.deliveries(who, e.ID, "?eventType=verification.completed"); len(l.Deliveries) != 1 {
		t.Fatalf("filtered %+v", l)
	}
	if r := f.call(newTenant(), "GET", "/api/v1/webhooks/"+e.ID+"/deliveries", nil); r.status != http.StatusNotFound {
		t.Fatalf("another organization reads the log: %d", r.status)
	}
}

// One organization's hanging endpoint holds only its own deliveries: an
// event for another organization is delivered while every request to the
// hanging one is still open.
func TestHangingEndpointDoesNotHoldUpOthers(t *testing.T) {
	t.Parallel()
	f := setup(t, options{timeout: time.Minute})
	slow, fast := newTenant(), newTenant()
	hang := newReceiver(t, nil)
	hang.hang = make(chan struct{})
	defer close(hang.hang)
	f.endpoint(slow, hang.URL, nil)
	for range 20 {
		f.publish(slow, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	}
	eventually.True(t, patience, "the hanging endpoint's requests", func() bool { return len(hang.requests()) == f.cfg.PerEndpoint })
	rc := newReceiver(t, nil)
	f.endpoint(fast, rc.URL, nil)
	start := time.Now()
	f.publish(fast, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	eventually.True(t, patience, "the other organization's delivery", func() bool { return len(rc.requests()) == 1 })
	t.Logf("delivered in %v beside a hanging endpoint", time.Since(start))
	if n := len(hang.requests()); n != f.cfg.PerEndpoint {
		t.Fatalf("%d requests to the hanging endpoint, want its limit %d", n, f.cfg.PerEndpoint)
	}
}

// With private targets off, the dialer refuses a non-public address at
// connect time, in either environment: a name that resolved to a public
// address at registration and resolves now to loopback, or to the
// metadata address through NAT64, 6to4 or an IPv4-mapped address. A
// redirect is never followed.
func TestDialerRefusesPrivateAddressesAndRedirects(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	port := rc.Listener.Addr().(*net.TCPAddr).Port
	m, _ := webhook.NewMessage("m1", webhook.TypeTest, "org", "test", time.Now(), map[string]any{})
	strict := dispatch.NewClient(webhook.URLPolicy{Resolver: hosts}, 5*time.Second)
	for _, host := range []string{"localhost", "rebind.example.com", "nat64.example.com", "6to4.example.com", "mapped.example.com",
		"mapped10.example.com"} {
		for _, env := range []string{webhook.EnvTest, "live"} {
			e := webhook.Endpoint{Env: env, URL: fmt.Sprintf("http://%s:%d/", host, port), Secret: signing.NewSecret()}
			if a := dispatch.Send(context.Background(), strict, e, m, time.Now()); a.Succeeded || a.StatusCode != 0 || !strings.Contains(a.Error, "non-public") {
				t.Errorf("strict client to %s (%s): %+v", host, env, a)
			}
		}
	}
	if n := len(rc.requests()); n != 0 {
		t.Fatalf("%d requests reached the loopback receiver", n)
	}
	redirect := newReceiver(t, nil)
	redirect.Config.Handler = http.RedirectHandler(rc.URL, http.StatusFound)
	e := webhook.Endpoint{Env: webhook.EnvTest, URL: redirect.URL, Secret: signing.NewSecret()}
	a := dispatch.Send(context.Background(), dispatch.NewClient(webhook.URLPolicy{SandboxPrivate: true}, 5*time.Second), e, m, time.Now())
	if a.Succeeded || a.StatusCode != http.StatusFound || len(rc.requests()) != 0 {
		t.Fatalf("redirect: %+v, %d requests to its target", a, len(rc.requests()))
	}
}

// With private targets on (make run), a sandbox delivery reaches a
// receiver on loopback, and a live delivery to the same receiver is
// refused when it connects, even with a connection to it in the pool: a
// live endpoint that points at a private address now (a name rebound
// after registration) cannot reach the internal network.
func TestPrivateTargetsAreForSandboxDeliveriesOnly(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	port := rc.Listener.Addr().(*net.TCPAddr).Port
	client := dispatch.NewClient(webhook.URLPolicy{SandboxPrivate: true, Resolver: hosts}, 5*time.Second)
	for i, url := range []string{rc.URL + "/", fmt.Sprintf("http://rebind.example.com:%d/", port)} {
		m, _ := webhook.NewMessage(ids.New("msg"), webhook.TypeTest, "org", "test", time.Now(), map[string]any{})
		sandbox := webhook.Endpoint{Env: webhook.EnvTest, URL: url, Secret: signing.NewSecret()}
		if a := dispatch.Send(context.Background(), client, sandbox, m, time.Now()); !a.Succeeded || len(rc.requests()) != i+1 {
			t.Fatalf("sandbox delivery to %s: %+v, %d requests", url, a, len(rc.requests()))
		}
		live := webhook.Endpoint{Env: "live", URL: url, Secret: signing.NewSecret()}
		if a := dispatch.Send(context.Background(), client, live, m, time.Now()); a.Succeeded || a.StatusCode != 0 || !strings.Contains(a.Error, "non-public") {
			t.Fatalf("live delivery to %s: %+v", url, a)
		}
		if n := len(rc.requests()); n != i+1 {
			t.Fatalf("the live delivery to %s reached the receiver (%d requests)", url, n)
		}
	}
}

// The log keeps what ended for the retention period only; a delivery
// still retrying is kept whatever its age.
func TestOldEndedDeliveriesArePruned(t *testing.T) {
	t.Parallel()
	f := setup(t, options{schedule: webhook.Schedule{0, time.Hour}})
	who := newTenant()
	ok := newReceiver(t, nil)
	bad := newReceiver(t, func(int, []byte) int { return http.StatusInternalServerError })
	e1 := f.endpoint(who, ok.URL, nil)
	e2 := f.endpoint(who, bad.URL, nil)
	f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	eventually.True(t, patience, "one succeeded, one retrying", func() bool {
		return len(f.deliveries(who, e1.ID, "?status=succeeded").Deliveries) == 1 &&
			len(f.deliveries(who, e2.ID, "?status=retrying").Deliveries) == 1
	})
	if _, err := f.pool.Exec(context.Background(), `UPDATE deliveries SET created_at = created_at - interval '40 days'`); err != nil {
		t.Fatal(err)
	}
	n, err := f.store.Prune(context.Background(), time.Now().Add(-30*24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d: %v", n, err)
	}
	if len(f.deliveries(who, e1.ID, "").Deliveries) != 0 || len(f.deliveries(who, e2.ID, "").Deliveries) != 1 {
		t.Fatal("pruned the wrong deliveries")
	}
}

// Two dispatchers on one database (two replicas) share the schedule:
// every event arrives once, and an endpoint never has more requests in
// flight than its limit, counted across both.
func TestReplicasShareTheScheduleWithinTheEndpointLimit(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	stopFirst := f.stop
	f.start() // a second replica
	defer stopFirst()
	who := newTenant()
	var mu sync.Mutex
	inFlight, most := 0, 0
	rc := newReceiver(t, nil)
	inner := rc.Config.Handler
	rc.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		time.Sleep(10 * time.Millisecond) // long enough for requests to overlap
		inner.ServeHTTP(w, r)
		mu.Lock()
		inFlight--
		mu.Unlock()
	})
	e := f.endpoint(who, rc.URL, nil)
	const n = 40
	for range n {
		f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	}
	eventually.True(t, patience, "every delivery", func() bool { return len(f.deliveries(who, e.ID, "?status=succeeded&limit=100").Deliveries) == n })
	seen := map[string]int{}
	for _, r := range rc.requests() {
		seen[r.header.Get("webhook-id")]++
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != n || len(rc.requests()) != n || most > f.cfg.PerEndpoint || most < 2 {
		t.Fatalf("%d events, %d requests, at most %d in flight (limit %d)", len(seen), len(rc.requests()), most, f.cfg.PerEndpoint)
	}
}
