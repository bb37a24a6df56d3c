// Package orgaudittest reads the org.action events a service wrote to its
// outbox, for the tests that check every lender change is audited once,
// by the right actor, and nothing else is.
package orgaudittest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/orgaudit"
)

// Recorded is one org.action as written to the outbox.
type Recorded struct {
	Topic, Key string
	Event      event.Event
	orgaudit.Action
}

// Actions returns every org.action in pool's outbox, oldest first.
func Actions(t testing.TB, pool *pgxpool.Pool) []Recorded {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT topic, msg_key, payload FROM outbox WHERE event_type = $1 ORDER BY id`, orgaudit.Type)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []Recorded
	for rows.Next() {
		var r Recorded
		var payload []byte
		if err := rows.Scan(&r.Topic, &r.Key, &payload); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(payload, &r.Event); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(r.Event.Data, &r.Action); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Since returns the actions recorded after the first n (a count taken
// before the call under test).
func Since(t testing.TB, pool *pgxpool.Pool, n int) []Recorded {
	t.Helper()
	all := Actions(t, pool)
	if n > len(all) {
		t.Fatalf("outbox has %d org.action events, fewer than the %d counted before", len(all), n)
	}
	return all[n:]
}

// Want is what a test expects of one recorded action; empty fields are
// not checked.
type Want struct {
	Topic      string
	OrgID, Env string
	ActorType  string
	ActorID    string
	MemberRole string
	Action     string
	Target     string
	IP         string
}

// One fails t unless got holds exactly one action, matching w, and
// returns it.
func One(t testing.TB, got []Recorded, w Want) Recorded {
	t.Helper()
	if len(got) != 1 {
		t.Fatalf("want exactly one org.action %s, got %d: %+v", w.Action, len(got), got)
	}
	r := got[0]
	check := func(name, have, want string) {
		if want != "" && have != want {
			t.Errorf("org.action %s: %s = %q, want %q", w.Action, name, have, want)
		}
	}
	check("topic", r.Topic, w.Topic)
	check("orgId", r.Event.OrgID, w.OrgID)
	check("key", r.Key, w.OrgID)
	check("environment", r.Event.Environment, w.Env)
	check("actorType", r.ActorType, w.ActorType)
	check("actorId", r.ActorID, w.ActorID)
	check("memberRole", r.MemberRole, w.MemberRole)
	check("action", r.Action.Action, w.Action)
	check("target", r.Target, w.Target)
	check("ip", r.IP, w.IP)
	check("outcome", r.Outcome, orgaudit.Done)
	if w.ActorType == orgaudit.ActorKey && r.MemberRole != "" {
		t.Errorf("org.action %s by a key carries memberRole %q", w.Action, r.MemberRole)
	}
	if r.At.IsZero() {
		t.Errorf("org.action %s has no time", w.Action)
	}
	return r
}
