package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/eventually"
)

// eventsPage is GET /api/v1/events' data.
type eventsPage struct {
	Events     []json.RawMessage `json:"events"`
	NextCursor *string           `json:"nextCursor"`
}

// listAllEvents pages through GET /api/v1/events with limit and filter,
// checking that every page but the last is full and only the last has no
// cursor; it returns the raw events in the order listed.
func listAllEvents(t *testing.T, key string, filter url.Values, limit int) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	cursor := ""
	for page := 0; page < 1000; page++ {
		q := url.Values{"limit": {strconv.Itoa(limit)}}
		for k, v := range filter {
			q[k] = v
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r := P.API(t, "GET", "/api/v1/events?"+q.Encode(), key, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("events page %d: %d %s", page, r.Status, r.Body)
		}
		var p eventsPage
		r.Decode(t, &p)
		out = append(out, p.Events...)
		if p.NextCursor == nil {
			return out
		}
		if len(p.Events) != limit {
			t.Fatalf("page %d has %d events and a next cursor (limit %d)", page, len(p.Events), limit)
		}
		cursor = *p.NextCursor
	}
	t.Fatal("more than 1000 pages")
	return nil
}

// customerOf reads data.customerId of an event body.
func customerOf(raw []byte) string {
	var b struct{ Data struct{ CustomerID string } }
	_ = json.Unmarshal(raw, &b)
	return b.Data.CustomerID
}

// Sandbox customers' events (at least 250 of them) are listed through the
// gateway, newest first with no gap and no duplicate: each exactly the
// body a loopback receiver got, under its webhook-id; the type and
// customer filters narrow them; the other environment and another
// organization see none of them; bad parameters are 400.
func TestEventsAPIThroughTheGateway(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "test")
	_, readOnly := P.NewKey(t, org, "test", "kyc:read")
	_, writeOnly := P.NewKey(t, org, "test", "kyc:write")
	_, live := P.NewKey(t, org, "live")
	rc := newHookReceiver(t, nil)
	e := registerHook(t, key, rc.URL+"/kyc", nil)
	// Three addresses each; every other customer has one the sandbox
	// rejects, so both verification.completed and .rejected come.
	threeAddresses := func(reject bool) map[string]any {
		notes := ""
		if reject {
			notes = "SANDBOX_REJECT"
		}
		return map[string]any{"addresses": []map[string]any{
			{"streetName": "Adeola Odeku Street", "city": "Lagos", "state": "Lagos"},
			{"streetName": "Allen Avenue", "city": "Ikeja", "state": "Lagos"},
			{"streetName": "Nowhere Road", "city": "Ikeja", "state": "Lagos", "notes": notes}}}
	}
	var customers []string
	// Ended, and its report ready: a customer's stage events reach the
	// endpoint in order, so by report.ready every one of them has.
	ended := func() int {
		done := len(rc.ofType(t, e.Secret, "verification.completed")) + len(rc.ofType(t, e.Secret, "verification.rejected"))
		return min(done, len(rc.ofType(t, e.Secret, "report.ready")))
	}
	for len(rc.requests()) < 250 {
		for i := range 10 {
			customers = append(customers, create(t, key, newCustomer(threeAddresses(i%2 == 1))).ID)
		}
		eventually.True(t, patience, "every customer's verification ended", func() bool { return ended() == len(customers) })
	}
	delivered := map[string][]byte{}
	for _, r := range rc.requests() {
		delivered[r.header.Get("webhook-id")] = r.body
	}
	// The API lists an event once the webhook service has stored it, in
	// the transaction that scheduled its delivery: by now every one.
	all := listAllEvents(t, readOnly, nil, 100)
	listed := map[string]bool{}
	prev := ""
	for _, raw := range all {
		var b hookBody
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		if listed[b.ID] {
			t.Fatalf("event %s listed twice", b.ID)
		}
		listed[b.ID] = true
		if string(delivered[b.ID]) != string(raw) {
			t.Fatalf("event %s listed as %s, delivered as %s", b.ID, raw, delivered[b.ID])
		}
		if prev != "" && b.CreatedAt > prev {
			t.Fatalf("event %s (%s) listed after an older one (%s)", b.ID, b.CreatedAt, prev)
		}
		prev = b.CreatedAt
	}
	if len(listed) != len(delivered) || len(listed) < 250 {
		t.Fatalf("listed %d events, the receiver got %d", len(listed), len(delivered))
	}
	one := P.API(t, "GET", "/api/v1/events/"+rc.requests()[0].header.Get("webhook-id"), readOnly, nil)
	if one.Status != http.StatusOK || string(one.Env.Data) != string(rc.requests()[0].body) {
		t.Fatalf("GET /events/{id}: %d %s", one.Status, one.Body)
	}

	// Filters.
	completed := listAllEvents(t, key, url.Values{"type": {"verification.completed"}}, 7)
	if want := rc.ofType(t, e.Secret, "verification.completed"); len(completed) != len(want) || len(want) == 0 {
		t.Fatalf("type=verification.completed: %d events, the receiver got %d", len(completed), len(want))
	}
	for _, c := range customers[:3] {
		got := listAllEvents(t, key, url.Values{"customerId": {c}}, 2)
		want, updates := 0, 0
		for _, body := range delivered {
			if customerOf(body) == c {
				want++
				if strings.Contains(string(body), `"type":"verification.address.updated"`) {
					updates++
				}
			}
		}
		if len(got) != want || slices.ContainsFunc(got, func(raw json.RawMessage) bool { return customerOf(raw) != c }) {
			t.Fatalf("customerId=%s: %d events, the receiver got %d", c, len(got), want)
		}
		both := listAllEvents(t, key, url.Values{"customerId": {c}, "type": {"verification.address.updated"}}, 100)
		if len(both) != updates || updates == 0 {
			t.Fatalf("customerId and type: %d address updates listed, %d delivered", len(both), updates)
		}
	}

	// Isolation: nothing of this sandbox in live or in another
	// organization, by list or by id.
	someID := rc.requests()[0].header.Get("webhook-id")
	for name, other := range map[string]string{"live": live, "another organization": sandbox(t)} {
		var p eventsPage
		P.API(t, "GET", "/api/v1/events", other, nil).Decode(t, &p)
		if len(p.Events) != 0 {
			t.Fatalf("%s lists %d events of this sandbox", name, len(p.Events))
		}
		if r := P.API(t, "GET", "/api/v1/events/"+someID, other, nil); r.Status != http.StatusNotFound || r.Code() != "NOT_FOUND" {
			t.Fatalf("%s reads an event of this sandbox: %d %s", name, r.Status, r.Body)
		}
	}
	if r := P.API(t, "GET", "/api/v1/events", writeOnly, nil); r.Status != http.StatusForbidden || r.Code() != "INSUFFICIENT_SCOPE" {
		t.Fatalf("a kyc:write key: %d %s", r.Status, r.Body)
	}

	// Bad parameters name themselves, never a 5xx.
	var first eventsPage
	P.API(t, "GET", "/api/v1/events?limit=1", key, nil).Decode(t, &first)
	for _, c := range []struct{ query, field string }{
		{"limit=0", "limit"}, {"limit=101", "limit"}, {"limit=ten", "limit"},
		{"type=verification.sent", "type"}, {"customerId=nobody", "customerId"},
		{"cursor=" + strings.ToUpper(*first.NextCursor), "cursor"},
		{"cursor=" + *first.NextCursor + "&type=verification.completed", "cursor"},
		{"type=%00", "type"}, {"customerId=%FF", "customerId"},
	} {
		r := P.API(t, "GET", "/api/v1/events?"+c.query, key, nil)
		if r.Status != http.StatusBadRequest || r.Code() != "VALIDATION_ERROR" || !strings.Contains(string(r.Body), `"field":"`+c.field+`"`) {
			t.Errorf("%s: %d %s, want 400 VALIDATION_ERROR naming %s", c.query, r.Status, r.Body, c.field)
		}
	}
	if r := P.API(t, "GET", "/api/v1/events?cursor="+*first.NextCursor, live, nil); r.Status != http.StatusBadRequest {
		t.Fatalf("a sandbox cursor with a live key: %d %s", r.Status, r.Body)
	}
}
