package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/eventually"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/services/webhook/internal/events"
)

// listedEvent is an event as GET /events shows it: the webhook body.
type listedEvent struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	CreatedAt   string          `json:"createdAt"`
	Environment string          `json:"environment"`
	Data        json.RawMessage `json:"data"`
}

type eventPage struct {
	Events     []json.RawMessage `json:"events"`
	NextCursor *string           `json:"nextCursor"`
}

func (p eventPage) parsed(t *testing.T) []listedEvent {
	t.Helper()
	out := make([]listedEvent, len(p.Events))
	for i, raw := range p.Events {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func (f *fixture) events(who tenant, query string) eventPage {
	f.t.Helper()
	r := f.call(who, "GET", "/api/v1/events"+query, nil)
	if r.status != http.StatusOK {
		f.t.Fatalf("events%s: %d %s", query, r.status, r.body)
	}
	return decode[eventPage](f.t, r)
}

// allEvents pages through the list with limit, checking each page's
// size and that the last one (only) has no nextCursor.
func (f *fixture) allEvents(who tenant, filter url.Values, limit int) []listedEvent {
	f.t.Helper()
	var out []listedEvent
	cursor := ""
	for pages := 0; ; pages++ {
		q := url.Values{}
		for k, v := range filter {
			q[k] = v
		}
		q.Set("limit", strconv.Itoa(limit))
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		p := f.events(who, "?"+q.Encode())
		out = append(out, p.parsed(f.t)...)
		if p.NextCursor == nil {
			return out
		}
		if len(p.Events) != limit || pages > 1000 {
			f.t.Fatalf("a page of %d with a next cursor (limit %d)", len(p.Events), limit)
		}
		cursor = *p.NextCursor
	}
}

// 250 events of an organization without any endpoint are listed (they
// are stored whether or not a webhook wants them), newest first, across
// pages with no gap and no duplicate; the filters narrow them.
func TestEventsPageThroughEveryEventWithFilters(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	customers := []string{ids.New("cus"), ids.New("cus"), ids.New("cus")}
	var published []string
	byType, byCustomer := map[string]int{}, map[string]int{}
	for i := range 250 {
		c := customers[i%3]
		typ, data := "verification.address.updated", addressUpdated(c, ids.New("adr"), i)
		if i%5 == 0 {
			typ, data = "verification.completed", completed(c, ids.New("adr"))
		}
		published = append(published, f.publish(who, typ, data).ID)
		byType[typ]++
		byCustomer[c]++
		if typ == "verification.address.updated" { // a VERIFIED address: its stage event too
			published = append(published, events.StageID(published[len(published)-1], "address.verified"))
			byType["address.verified"]++
			byCustomer[c]++
		}
	}
	got := f.allEvents(who, nil, 100)
	gotIDs := make([]string, len(got))
	for i, e := range got {
		gotIDs[i] = e.ID
		if i > 0 && e.CreatedAt > got[i-1].CreatedAt {
			t.Fatalf("event %d (%s) is newer than the one before (%s)", i, e.CreatedAt, got[i-1].CreatedAt)
		}
		if e.Environment != who.env || len(e.Data) == 0 {
			t.Fatalf("event %d: %+v", i, e)
		}
	}
	slices.Sort(gotIDs)
	slices.Sort(published)
	if !slices.Equal(gotIDs, published) {
		t.Fatalf("listed %d events (%d distinct of the published), want the %d published and derived", len(gotIDs),
			len(slices.Compact(slices.Clone(gotIDs))), len(published))
	}
	if p := f.events(who, ""); len(p.Events) != 20 || p.NextCursor == nil {
		t.Fatalf("default page: %d events, next %v", len(p.Events), p.NextCursor)
	}
	for typ, n := range byType {
		es := f.allEvents(who, url.Values{"type": {typ}}, 37)
		if len(es) != n || slices.ContainsFunc(es, func(e listedEvent) bool { return e.Type != typ }) {
			t.Fatalf("type=%s: %d events, want %d of that type", typ, len(es), n)
		}
	}
	for c, n := range byCustomer {
		es := f.allEvents(who, url.Values{"customerId": {c}}, 30)
		if len(es) != n || slices.ContainsFunc(es, func(e listedEvent) bool { return !strings.Contains(string(e.Data), c) }) {
			t.Fatalf("customerId=%s: %d events, want %d", c, len(es), n)
		}
		both := f.allEvents(who, url.Values{"customerId": {c}, "type": {"verification.completed"}}, 100)
		for _, e := range both {
			if e.Type != "verification.completed" || !strings.Contains(string(e.Data), c) {
				t.Fatalf("type and customerId: %+v", e)
			}
		}
		if len(both) == 0 {
			t.Fatalf("no completed events of %s", c)
		}
	}
}

// Each listed event is byte for byte the body its webhook delivered, and
// its id is the delivery's webhook-id; GET /events/{id} reads the same.
func TestEventsAreTheDeliveredBodies(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	rc := newReceiver(t, nil)
	ep := f.endpoint(who, rc.URL, nil)
	if r := f.call(who, "POST", "/api/v1/webhooks/"+ep.ID+"/test", nil); r.status != http.StatusAccepted {
		t.Fatalf("test ping: %d %s", r.status, r.body)
	}
	c := ids.New("cus")
	f.publish(who, "verification.address.updated", addressUpdated(c, ids.New("adr"), 1))
	f.publish(who, "verification.completed", completed(c, ids.New("adr")))
	// The ping, both events and the address.verified stage event.
	eventually.True(t, patience, "the ping and three events delivered", func() bool { return len(rc.requests()) == 4 })
	listed := map[string][]byte{}
	for _, raw := range f.events(who, "").Events {
		var e listedEvent
		_ = json.Unmarshal(raw, &e)
		listed[e.ID] = raw
	}
	for _, r := range rc.requests() {
		id := r.header.Get("webhook-id")
		if bytes.Contains(r.body, []byte(`"type":"webhook.test"`)) {
			if _, ok := listed[id]; ok {
				t.Fatal("the test ping is listed")
			}
			continue
		}
		if !bytes.Equal(listed[id], r.body) {
			t.Fatalf("event %s listed as %s, delivered as %s", id, listed[id], r.body)
		}
		one := f.call(who, "GET", "/api/v1/events/"+id, nil)
		if one.status != http.StatusOK || !bytes.Equal(one.env.Data, r.body) {
			t.Fatalf("GET /events/%s: %d %s", id, one.status, one.body)
		}
	}
	// A test ping is one endpoint's, not an event of the organization.
	if len(listed) != 3 {
		t.Fatalf("listed %d events, want 3", len(listed))
	}
}

// Another organization's and the other environment's events are not
// listed, and reading one by id is 404 NOT_FOUND, as an unknown id is.
func TestEventsAreIsolatedByTenantAndEnvironment(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	a, b := newTenant(), newTenant()
	aLive := tenant{a.org, "live"}
	e := f.publish(a, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	if got := f.events(a, "").Events; len(got) != 1 {
		t.Fatalf("owner sees %d events", len(got))
	}
	for _, other := range []tenant{b, aLive} {
		if got := f.events(other, "").Events; len(got) != 0 {
			t.Fatalf("%+v sees %d events of another tenant", other, len(got))
		}
		if r := f.call(other, "GET", "/api/v1/events/"+e.ID, nil); r.status != http.StatusNotFound || r.code() != "NOT_FOUND" {
			t.Fatalf("%+v reads another tenant's event: %d %s", other, r.status, r.body)
		}
	}
	for _, id := range []string{"00000000-0000-0000-0000-000000000000", "evt_unknown", strings.Repeat("x", 300)} {
		if r := f.call(a, "GET", "/api/v1/events/"+id, nil); r.status != http.StatusNotFound || r.code() != "NOT_FOUND" {
			t.Fatalf("unknown id %q: %d %s", id, r.status, r.body)
		}
	}
}

// Bad parameters and cursors are 400 VALIDATION_ERROR naming the
// parameter: a cursor that was altered, or made for another tenant,
// environment or filter, is refused rather than read as a position.
func TestEventsRefuseBadParametersAndForeignCursors(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	a, b := newTenant(), newTenant()
	for _, who := range []tenant{a, b, {a.org, "live"}} {
		for range 3 {
			f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
		}
	}
	next := func(who tenant, query string) string {
		p := f.events(who, query)
		if p.NextCursor == nil {
			t.Fatalf("no next cursor for %s", query)
		}
		return *p.NextCursor
	}
	good := next(a, "?limit=1")
	raw, err := base64.RawURLEncoding.DecodeString(good)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-20] ^= 1
	tampered := base64.RawURLEncoding.EncodeToString(raw)
	cases := []struct{ query, field string }{
		{"?limit=0", "limit"}, {"?limit=101", "limit"}, {"?limit=-1", "limit"}, {"?limit=abc", "limit"}, {"?limit=", "limit"},
		{"?limit=1e2", "limit"}, {"?limit=99999999999999999999", "limit"},
		{"?type=verification.unknown", "type"}, {"?type=webhook.test", "type"}, {"?type=*", "type"},
		{"?customerId=someone", "customerId"}, {"?customerId=adr_123", "customerId"},
		{"?cursor=not-a-cursor", "cursor"}, {"?cursor=" + tampered, "cursor"}, {"?cursor=%2F%2F%2F", "cursor"},
		{"?cursor=" + next(b, "?limit=1"), "cursor"},
		{"?cursor=" + next(tenant{a.org, "live"}, "?limit=1"), "cursor"},
		{"?cursor=" + next(a, "?limit=1&type=verification.completed"), "cursor"},
	}
	for _, c := range cases {
		r := f.call(a, "GET", "/api/v1/events"+c.query, nil)
		if r.status != http.StatusBadRequest || r.code() != "VALIDATION_ERROR" || !strings.Contains(string(r.body), `"field":"`+c.field+`"`) {
			t.Errorf("%s: %d %s, want 400 VALIDATION_ERROR on %s", c.query, r.status, r.body, c.field)
		}
	}
	if p := f.events(a, "?limit=1&cursor="+good); len(p.Events) != 1 {
		t.Fatalf("the untouched cursor: %d events", len(p.Events))
	}
	if p := f.events(a, "?limit=100&type=&customerId=&cursor="); len(p.Events) != 3 {
		t.Fatalf("empty filters read as absent: %d events", len(p.Events))
	}
}

// The list reaches 30 days back; the sweep deletes what is older (and
// no delivery refers to) and keeps the rest.
func TestEventsAreKeptThirtyDays(t *testing.T) {
	t.Parallel()
	f := setup(t, options{})
	who := newTenant()
	old := f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	recent := f.publish(who, "verification.completed", completed(ids.New("cus"), ids.New("adr")))
	ctx := context.Background()
	age := func(id string, days int) {
		if _, err := f.pool.Exec(ctx, `UPDATE messages SET created_at = now() - make_interval(days => $2) WHERE id = $1`, id, days); err != nil {
			t.Fatal(err)
		}
	}
	age(old.ID, 31)
	age(recent.ID, 29)
	if got := f.events(who, "").parsed(t); len(got) != 1 || got[0].ID != recent.ID {
		t.Fatalf("listed %+v, want only the 29-day-old event", got)
	}
	if r := f.call(who, "GET", "/api/v1/events/"+old.ID, nil); r.status != http.StatusNotFound {
		t.Fatalf("a 31-day-old event: %d", r.status)
	}
	if _, err := f.store.Prune(ctx, time.Now().Add(-7*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	var left []string
	rows, _ := f.pool.Query(ctx, `SELECT id FROM messages WHERE org_id = $1`, who.org)
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		left = append(left, id)
	}
	if rows.Err() != nil || len(left) != 1 || left[0] != recent.ID {
		t.Fatalf("after the sweep %v are left (%v), want only %s: a shorter delivery log retention must not cut the 30 days",
			left, rows.Err(), recent.ID)
	}
}
