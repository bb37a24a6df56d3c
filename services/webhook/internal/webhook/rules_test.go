package webhook

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/dnstest"
)

func ptr[T any](v T) *T { return &v }

// strict resolves from a fixed table: names tests use, and nothing else.
var strict = URLPolicy{Resolver: dnstest.Resolver(dnstest.Hosts{
	"hooks.example.com":    {"93.184.216.34"},
	"rebind.example.com":   {"127.0.0.1"},
	"mixed.example.com":    {"93.184.216.34", "10.0.0.7"},
	"nat64.example.com":    {"64:ff9b::a9fe:a9fe"},
	"6to4.example.com":     {"2002:a9fe:a9fe::1"},
	"mapped.example.com":   {"::ffff:169.254.169.254"},
	"mapped10.example.com": {"::ffff:10.0.0.1"},
	"metadata.example.com": {"169.254.169.254"},
})}

// private is what make run and the tests configure (WEBHOOK_ALLOW_PRIVATE).
var private = URLPolicy{SandboxPrivate: true, Resolver: strict.Resolver}

func TestCheckCreate(t *testing.T) {
	cases := []struct {
		name   string
		policy URLPolicy
		env    string
		in     CreateInput
		code   string   // "" accepted
		fields []string // fields at fault
		events []string // when accepted
	}{
		{"https live", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/kyc")}, "", nil, []string{"*"}},
		{"http sandbox", strict, "test", CreateInput{URL: ptr("http://hooks.example.com/kyc")}, "", nil, []string{"*"}},
		{"http live", strict, "live", CreateInput{URL: ptr("http://hooks.example.com/kyc")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"loopback", strict, "test", CreateInput{URL: ptr("http://127.0.0.1:9000/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"private", strict, "test", CreateInput{URL: ptr("http://10.0.0.1/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"metadata", strict, "test", CreateInput{URL: ptr("http://169.254.169.254/latest")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"cgnat", strict, "test", CreateInput{URL: ptr("http://100.64.0.1/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"ipv6 loopback", strict, "test", CreateInput{URL: ptr("http://[::1]/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"mapped loopback", strict, "test", CreateInput{URL: ptr("http://[::ffff:127.0.0.1]/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"multicast", strict, "test", CreateInput{URL: ptr("http://224.0.0.1/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"unspecified", strict, "test", CreateInput{URL: ptr("http://0.0.0.0/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"nat64 metadata", strict, "live", CreateInput{URL: ptr("https://[64:ff9b::a9fe:a9fe]/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"6to4 metadata", strict, "live", CreateInput{URL: ptr("https://[2002:a9fe:a9fe::1]/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"mapped metadata", strict, "live", CreateInput{URL: ptr("https://[::ffff:169.254.169.254]/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"mapped private", strict, "live", CreateInput{URL: ptr("https://[::ffff:10.0.0.1]/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"name resolving to nat64", strict, "live", CreateInput{URL: ptr("https://nat64.example.com/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"name resolving to 6to4", strict, "live", CreateInput{URL: ptr("https://6to4.example.com/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"name resolving to mapped metadata", strict, "live", CreateInput{URL: ptr("https://mapped.example.com/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"name resolving to mapped private", strict, "live", CreateInput{URL: ptr("https://mapped10.example.com/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"name resolving to metadata", strict, "live", CreateInput{URL: ptr("https://metadata.example.com/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"name resolving to loopback", strict, "test", CreateInput{URL: ptr("http://rebind.example.com/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"name with one private address", strict, "live", CreateInput{URL: ptr("https://mixed.example.com/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"name that does not resolve", strict, "live", CreateInput{URL: ptr("https://nowhere.example.com/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"localhost", strict, "test", CreateInput{URL: ptr("http://localhost:8080/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"credentials", strict, "live", CreateInput{URL: ptr("https://a:b@hooks.example.com/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"not a url", strict, "live", CreateInput{URL: ptr("hooks")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"missing url", strict, "live", CreateInput{}, apperr.CodeValidation, []string{"url"}, nil},
		{"loopback allowed in sandbox", private, "test", CreateInput{URL: ptr("http://127.0.0.1:9000/")}, "", nil, []string{"*"}},
		{"private allowed in sandbox", private, "test", CreateInput{URL: ptr("https://10.0.0.1/")}, "", nil, []string{"*"}},
		{"allowed private still https in live", private, "live", CreateInput{URL: ptr("http://127.0.0.1:9000/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"private never in live", private, "live", CreateInput{URL: ptr("https://10.0.0.1/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"loopback never in live", private, "live", CreateInput{URL: ptr("https://127.0.0.1:9000/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"name resolving to private never in live", private, "live", CreateInput{URL: ptr("https://rebind.example.com/")}, CodeInvalidWebhookURL, []string{"url"}, nil},
		{"public in live with private allowed", private, "live", CreateInput{URL: ptr("https://hooks.example.com/")}, "", nil, []string{"*"}},
		{"events listed", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/"), Events: &[]string{TypeRejected, TypeCompleted, TypeRejected}},
			"", nil, []string{TypeCompleted, TypeRejected}},
		{"events empty is all", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/"), Events: &[]string{}}, "", nil, []string{"*"}},
		{"star among others", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/"), Events: &[]string{TypeCompleted, "*"}}, "", nil, []string{"*"}},
		{"unknown event", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/"), Events: &[]string{"customer.created"}},
			apperr.CodeValidation, []string{"events[0]"}, nil},
		{"test event is not subscribable", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/"), Events: &[]string{TypeTest}},
			apperr.CodeValidation, []string{"events[0]"}, nil},
		{"every stage event", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/"), Events: &[]string{TypeReportReady,
			TypeAddressVerified, TypeAddressAssigned, TypeAddressRejected, TypeAddressCheckedIn, TypeAddressAttempted}},
			"", nil, []string{TypeAddressAssigned, TypeAddressAttempted, TypeAddressCheckedIn, TypeAddressRejected, TypeAddressVerified, TypeReportReady}},
		{"stage and status events", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/"), Events: &[]string{TypeAddressAttempted, TypeCompleted}},
			"", nil, []string{TypeAddressAttempted, TypeCompleted}},
		{"a source event is not a stage event", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/"), Events: &[]string{TypeAddressVerified, "report.generated"}},
			apperr.CodeValidation, []string{"events[1]"}, nil},
		{"a held result has no event", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/"), Events: &[]string{"address.in_review"}},
			apperr.CodeValidation, []string{"events[0]"}, nil},
		{"stage names are exact", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/"), Events: &[]string{"address.checkedIn", "Address.Verified", "address.*"}},
			apperr.CodeValidation, []string{"events[0]", "events[1]", "events[2]"}, nil},
		{"long description", strict, "live", CreateInput{URL: ptr("https://hooks.example.com/"), Description: ptr(strings.Repeat("a", 501))},
			apperr.CodeValidation, []string{"description"}, nil},
		{"bad url and description", strict, "live", CreateInput{URL: ptr("http://10.0.0.1/"), Description: ptr("a\x00")},
			CodeInvalidWebhookURL, []string{"url", "description"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := CheckCreate(context.Background(), c.policy, c.in, c.env)
			if c.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if fmt.Sprint(e.Events) != fmt.Sprint(c.events) || !e.Enabled {
					t.Fatalf("endpoint %+v", e)
				}
				return
			}
			ae, ok := apperr.As(err)
			if !ok || ae.Code != c.code {
				t.Fatalf("err %v, want %s", err, c.code)
			}
			var got []string
			for _, d := range ae.Details {
				got = append(got, d.Field)
			}
			if strings.Join(got, ",") != strings.Join(c.fields, ",") {
				t.Fatalf("fields %v, want %v", got, c.fields)
			}
		})
	}
}

func TestApplyUpdateEnablingForgetsTheFailureStreak(t *testing.T) {
	since := time.Now()
	e := Endpoint{Env: "live", URL: "https://hooks.example.com/", Events: []string{"*"}, DisabledReason: DisabledGone, FailingSince: &since}
	in := UpdateInput{}
	in.Enabled.Set, in.Enabled.V = true, true
	if err := ApplyUpdate(context.Background(), strict, &e, in); err != nil {
		t.Fatal(err)
	}
	if !e.Enabled || e.DisabledReason != "" || e.FailingSince != nil {
		t.Fatalf("after enabling: %+v", e)
	}
	in = UpdateInput{}
	in.URL.Set, in.URL.V = true, "https://10.1.1.1/"
	if err := ApplyUpdate(context.Background(), strict, &e, in); !apperr.IsCode(err, CodeInvalidWebhookURL) {
		t.Fatalf("private url on update: %v", err)
	}
}

func TestScheduleAndOutcome(t *testing.T) {
	s := Schedule{0, 10 * time.Second, time.Minute}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	d := Delivery{Status: StatusPending}
	// Three scheduled failures use the schedule up; the delays carry at
	// most 20 % jitter.
	o := d.After(Attempt{StatusCode: 500}, false, s, now)
	if o.Status != StatusRetrying || o.Scheduled != 1 || o.Next.Sub(now) < 8*time.Second || o.Next.Sub(now) > 12*time.Second {
		t.Fatalf("after 1st failure: %+v", o)
	}
	d.Status, d.Scheduled = o.Status, o.Scheduled
	o = d.After(Attempt{}, false, s, now)
	if o.Status != StatusRetrying || o.Scheduled != 2 || o.Next.Sub(now) < 48*time.Second || o.Next.Sub(now) > 72*time.Second {
		t.Fatalf("after 2nd failure: %+v", o)
	}
	d.Status, d.Scheduled = o.Status, o.Scheduled
	if o = d.After(Attempt{StatusCode: 503}, false, s, now); o.Status != StatusExhausted || o.Next != nil {
		t.Fatalf("after 3rd failure: %+v", o)
	}
	d.Status, d.Scheduled = o.Status, o.Scheduled
	// A failed manual resend leaves an exhausted delivery exhausted; a
	// successful one succeeds.
	if o = d.After(Attempt{StatusCode: 500}, true, s, now); o.Status != StatusExhausted || o.Next != nil || o.Scheduled != 3 {
		t.Fatalf("manual failure: %+v", o)
	}
	if o = d.After(Attempt{StatusCode: 204, Succeeded: true}, true, s, now); o.Status != StatusSucceeded || o.Next != nil {
		t.Fatalf("manual success: %+v", o)
	}
	// A manual resend of a retrying delivery does not use up the schedule.
	d = Delivery{Status: StatusRetrying, Scheduled: 1}
	if o = d.After(Attempt{StatusCode: 500}, true, s, now); o.Status != StatusRetrying || o.Scheduled != 1 {
		t.Fatalf("manual failure while retrying: %+v", o)
	}
}

func TestParseSchedule(t *testing.T) {
	s, err := ParseSchedule("0s, 5s,5m,30m,2h,5h,10h,10h")
	if err != nil || len(s) != len(DefaultSchedule) {
		t.Fatalf("%v %v", s, err)
	}
	for i := range s {
		if s[i] != DefaultSchedule[i] {
			t.Fatalf("entry %d: %v", i, s[i])
		}
	}
	for _, bad := range []string{"", "5", "-1s", "1s,,2s"} {
		if _, err := ParseSchedule(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSecretsDuringRotation(t *testing.T) {
	now := time.Now()
	until := now.Add(time.Hour)
	e := Endpoint{Secret: "new", PreviousSecret: "old", PreviousUntil: &until}
	if got := e.Secrets(now); len(got) != 2 || got[0] != "new" || got[1] != "old" {
		t.Fatalf("during overlap: %v", got)
	}
	if got := e.Secrets(until.Add(time.Second)); len(got) != 1 || got[0] != "new" {
		t.Fatalf("after overlap: %v", got)
	}
}

// FuzzCheckURL: whatever the URL, the policy answers without panicking,
// and anything it accepts with private targets off is an absolute
// http(s) URL whose host is not a non-public IP literal.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://hooks.example.com/kyc", "http://127.0.0.1/", "http://[::ffff:10.0.0.1]:80/", "https://0x7f.1/",
		"http://rebind.example.com", "https://a:b@c.d/", "//x", "https://hooks.example.com:99999/"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, raw string, sandbox bool) {
		env := "live"
		if sandbox {
			env = EnvTest
		}
		if msg := strict.Check(context.Background(), raw, env); msg == "" {
			if l := strings.ToLower(raw); !strings.HasPrefix(l, "https://") && !(sandbox && strings.HasPrefix(l, "http://")) {
				t.Fatalf("accepted %q", raw)
			}
		}
	})
}
