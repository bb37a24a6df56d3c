package webhook

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/pkg/publicurl"
)

// CreateInput is the body of POST /api/v1/webhooks.
type CreateInput struct {
	URL         *string   `json:"url"`
	Events      *[]string `json:"events"`
	Description *string   `json:"description"`
}

// UpdateInput is the body of PATCH /api/v1/webhooks/{id}: absent members
// stay as they are.
type UpdateInput struct {
	URL         optional.Field[string]   `json:"url"`
	Events      optional.Field[[]string] `json:"events"`
	Description optional.Field[string]   `json:"description"`
	Enabled     optional.Field[bool]     `json:"enabled"`
}

// URLPolicy decides which endpoint URLs are acceptable.
type URLPolicy struct {
	// SandboxPrivate accepts loopback and private targets for sandbox
	// endpoints (local runs and tests, whose receivers are on
	// 127.0.0.1). A live endpoint is always held to the public-address
	// rule, so a production deployment with this switch on by mistake
	// still refuses https://10.0.0.1/.
	SandboxPrivate bool
	// Resolver, when set, resolves host names at registration so a name
	// pointing into a private network is refused up front; the delivery
	// client resolves with it too and checks again at connect time.
	Resolver *net.Resolver
}

// Check returns what is wrong with raw as an endpoint URL in env, or "".
// Live endpoints must use https; sandbox ones may use http.
func (p URLPolicy) Check(ctx context.Context, raw, env string) string {
	private := p.AllowsPrivate(env)
	if msg := publicurl.CheckWith(raw, publicurl.Options{AllowHTTP: env == EnvTest, AllowPrivate: private}); msg != "" {
		return msg
	}
	if private || p.Resolver == nil {
		return ""
	}
	u, _ := url.Parse(raw)
	rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	err := publicurl.Resolve(rctx, p.Resolver, strings.TrimSuffix(u.Hostname(), "."))
	switch {
	case errors.Is(err, publicurl.ErrNotPublic):
		return "must point to a public host (its name resolves to a non-public address)"
	case err != nil:
		return "must name a host that resolves"
	}
	return ""
}

// AllowsPrivate reports whether endpoints in env may point at loopback
// and private addresses: sandbox ones when SandboxPrivate is on, live ones
// never. The delivery client applies the same rule when it connects.
func (p URLPolicy) AllowsPrivate(env string) bool { return p.SandboxPrivate && env == EnvTest }

// checker collects field problems; a bad URL makes the whole error
// INVALID_WEBHOOK_URL, every other problem VALIDATION_ERROR.
type checker struct {
	apperr.Checker
	badURL bool
}

func (c *checker) err() error {
	err := c.Err()
	if err == nil || !c.badURL {
		return err
	}
	e, _ := apperr.As(err)
	e.Code = CodeInvalidWebhookURL
	return e
}

func (c *checker) url(ctx context.Context, p URLPolicy, raw, env string) {
	if msg := p.Check(ctx, raw, env); msg != "" {
		c.Fail("url", "%s", msg)
		c.badURL = true
	}
}

// CheckCreate validates a new endpoint's input and returns it (without
// id, secret or times).
func CheckCreate(ctx context.Context, p URLPolicy, in CreateInput, env string) (Endpoint, error) {
	var ck checker
	e := Endpoint{Events: []string{AllEvents}, Enabled: true}
	if in.URL == nil {
		ck.Fail("url", "is required")
	} else {
		ck.url(ctx, p, *in.URL, env)
		e.URL = *in.URL
	}
	if in.Events != nil {
		e.Events = checkEvents(&ck.Checker, *in.Events)
	}
	if in.Description != nil {
		e.Description = checkDescription(&ck.Checker, *in.Description)
	}
	return e, ck.err()
}

// ApplyUpdate changes e as in says, checking every member.
func ApplyUpdate(ctx context.Context, p URLPolicy, e *Endpoint, in UpdateInput) error {
	var ck checker
	if in.URL.Set {
		if in.URL.Null {
			ck.Fail("url", "must not be null")
		} else {
			ck.url(ctx, p, in.URL.V, e.Env)
			e.URL = in.URL.V
		}
	}
	if in.Events.Set {
		e.Events = checkEvents(&ck.Checker, in.Events.V) // null: every event
	}
	if in.Description.Set {
		e.Description = checkDescription(&ck.Checker, in.Description.V)
	}
	if in.Enabled.Set {
		switch {
		case in.Enabled.Null:
			ck.Fail("enabled", "must be true or false")
		case in.Enabled.V && !e.Enabled:
			// Enabling starts afresh: the failure streak that disabled it
			// is forgotten.
			e.Enabled, e.DisabledReason, e.FailingSince = true, "", nil
		case !in.Enabled.V:
			e.Enabled = false
		}
	}
	return ck.err()
}

// checkEvents returns the subscribed types: empty or ["*"] is every
// type; duplicates are dropped.
func checkEvents(ck *apperr.Checker, events []string) []string {
	if len(events) > maxEventsEntries {
		ck.Fail("events", "must list at most %d types", maxEventsEntries)
		return nil
	}
	var out []string
	for i, t := range events {
		switch {
		case t == AllEvents:
			return []string{AllEvents}
		case !slices.Contains(Subscribable, t):
			ck.Fail(fmt.Sprintf("events[%d]", i), "must be one of %s or *", strings.Join(Subscribable, ", "))
		case !slices.Contains(out, t):
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return []string{AllEvents}
	}
	slices.Sort(out)
	return out
}

func checkDescription(ck *apperr.Checker, s string) string {
	if utf8.RuneCountInString(s) > MaxDescription || !utf8.ValidString(s) {
		ck.Fail("description", "must be valid text of at most %d characters", MaxDescription)
		return ""
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			ck.Fail("description", "must not contain control characters")
			return ""
		}
	}
	return s
}

// Schedule is the delay before each scheduled attempt: the first counts
// from the event, each later one from the failure before it.
type Schedule []time.Duration

// DefaultSchedule is the one the leading webhook services publish:
// immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (about 32
// hours in all).
var DefaultSchedule = Schedule{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// ParseSchedule reads "0s,5s,5m,...".
func ParseSchedule(s string) (Schedule, error) {
	var out Schedule
	for _, p := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("webhook: schedule entry %q is not a duration", p)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, errors.New("webhook: empty schedule")
	}
	return out, nil
}

// Next is when the attempt after `scheduled` failed scheduled attempts is
// due, with ±20 % jitter so that endpoints recovering from an outage are
// not hit by every retry at once; ok is false when the schedule is used
// up.
func (s Schedule) Next(now time.Time, scheduled int) (time.Time, bool) {
	if scheduled >= len(s) {
		return time.Time{}, false
	}
	d := s[scheduled]
	if d > 0 {
		d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
	}
	return now.Add(d), true
}
