package postgres_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pquerna/otp/totp"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/keyring"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/staffaudit"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
	"github.com/kycfield/kyc/services/auth-billing/internal/events"
	"github.com/kycfield/kyc/services/auth-billing/internal/postgres"
	"github.com/kycfield/kyc/services/auth-billing/migrations"
)

// clock is the service's clock, moved on by the tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// openThrottle lets every attempt through: the limits are the throttle
// package's tests' business.
type openThrottle struct{}

func (openThrottle) Reserve(context.Context, string, string) (time.Duration, error) { return 0, nil }
func (openThrottle) Succeeded(context.Context, string, string) error                { return nil }

type staffFixture struct {
	pool  *pgxpool.Pool
	clock *clock
	staff *account.Staff
	acc   *account.Service
	audit *inbox.Consumer
}

func newStaffFixture(t *testing.T) staffFixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Set(), outbox.Migration(), inbox.Migration())
	keys, err := keyring.Parse("t1:suAAo5uMGR4Aavec0Rcz99MfGYiUbRLFj4vvttr9Y/M=", "t1")
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Now().UTC()}
	store := postgres.New(pool, "auth-events", "staff-audit", "org-audit")
	return staffFixture{pool: pool, clock: c,
		staff: account.NewStaff(store, openThrottle{}, keys, c.Now, account.StaffOptions{SessionTTL: 12 * time.Hour, EnrolTTL: 72 * time.Hour, Cost: 4}),
		acc:   account.NewService(store, c.Now),
		audit: inbox.New("audit", nil, pool, logging.Discard(), inbox.HandlerOf([]inbox.Subscription{events.AuditSubscription()}, "auth-billing.staff-audit"))}
}

// adminToken is a context as kitserver.RequireAdmin makes it.
func adminToken() context.Context {
	return principal.With(context.Background(), principal.Principal{Kind: principal.KindAdminToken, ClientIP: "10.0.0.1"})
}

func asStaff(m account.Member) context.Context {
	return principal.With(context.Background(), principal.Principal{Kind: principal.KindStaff, StaffID: m.ID, StaffName: m.Name, Role: m.Role, ClientIP: "10.0.0.2"})
}

// code is what an authenticator app with secret shows at t.
func code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const password = "correct horse battery"

// enrol creates a member and finishes their enrolment; it returns the
// member, their TOTP secret and the login enrolment gave.
func (f staffFixture) enrol(t *testing.T, email string, role principal.Role) (account.Member, string, account.StaffLogin) {
	t.Helper()
	nm, err := f.staff.Create(adminToken(), email, "Member "+string(role), role)
	if err != nil {
		t.Fatal(err)
	}
	start, err := f.staff.StartEnrolment(context.Background(), nm.EnrolToken)
	if err != nil {
		t.Fatal(err)
	}
	login, err := f.staff.FinishEnrolment(context.Background(), nm.EnrolToken, password, code(t, start.Secret, f.clock.Now()), "10.0.0.3")
	if err != nil {
		t.Fatal(err)
	}
	return login.Member, start.Secret, login
}

// consumeAudit feeds every staff-audit event in the outbox to the audit
// consumer, as the relay and Kafka would, and returns how many there were.
func (f staffFixture) consumeAudit(t *testing.T) []event.Event {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `SELECT payload FROM outbox WHERE topic = 'staff-audit' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var evs []event.Event
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		e, err := event.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
	}
	rows.Close()
	for _, e := range evs {
		if err := f.audit.Apply(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	return evs
}

func TestEnrolmentWorksOnceAndSignsIn(t *testing.T) {
	t.Parallel()
	f := newStaffFixture(t)
	ctx := context.Background()
	nm, err := f.staff.Create(adminToken(), "Ada@ops.example.ng", "Ada Obi", principal.RoleAdmin)
	if err != nil || nm.EnrolToken == "" || !nm.EnrolExpires.Equal(f.clock.Now().UTC().Add(72*time.Hour)) {
		t.Fatalf("create: %+v %v", nm, err)
	}
	var stored int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM staff_enrolments WHERE token_hash = $1`, []byte(nm.EnrolToken)).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("the token itself is stored: %d %v", stored, err)
	}
	start, err := f.staff.StartEnrolment(ctx, nm.EnrolToken)
	if err != nil || start.Member.Email != "ada@ops.example.ng" || len(start.Secret) < 16 {
		t.Fatalf("start: %+v %v", start, err)
	}
	u, err := url.Parse(start.URL)
	if err != nil || u.Scheme != "otpauth" || u.Query().Get("secret") != start.Secret {
		t.Fatalf("otpauth URI %q: %v", start.URL, err)
	}
	if _, err := f.staff.FinishEnrolment(ctx, nm.EnrolToken, password, "000000", ""); !apperr.IsCode(err, apperr.CodeValidation) {
		t.Fatalf("a wrong code: %v", err)
	}
	if _, err := f.staff.FinishEnrolment(ctx, nm.EnrolToken, "password1", code(t, start.Secret, f.clock.Now()), ""); !apperr.IsCode(err, apperr.CodeValidation) {
		t.Fatalf("a common password: %v", err)
	}
	login, err := f.staff.FinishEnrolment(ctx, nm.EnrolToken, password, code(t, start.Secret, f.clock.Now()), "")
	if err != nil || login.Token == "" || login.CSRF == "" || login.Member.Role != principal.RoleAdmin {
		t.Fatalf("finish: %+v %v", login, err)
	}
	if m, err := f.staff.Resolve(ctx, login.Token, login.CSRF); err != nil || m.ID != nm.ID {
		t.Fatalf("the new session: %+v %v", m, err)
	}
	// Used once: neither start nor finish works again.
	if _, err := f.staff.StartEnrolment(ctx, nm.EnrolToken); !apperr.IsCode(err, account.CodeEnrolmentInvalid) {
		t.Fatalf("start again: %v", err)
	}
	if _, err := f.staff.FinishEnrolment(ctx, nm.EnrolToken, password, code(t, start.Secret, f.clock.Now().Add(30*time.Second)), ""); !apperr.IsCode(err, account.CodeEnrolmentInvalid) {
		t.Fatalf("finish again: %v", err)
	}
	if _, err := f.staff.StartEnrolment(ctx, "not-a-token"); !apperr.IsCode(err, account.CodeEnrolmentInvalid) {
		t.Fatalf("an unknown token: %v", err)
	}
}

func TestAnEnrolmentLinkExpires(t *testing.T) {
	t.Parallel()
	f := newStaffFixture(t)
	nm, err := f.staff.Create(adminToken(), "late@ops.example.ng", "Late Comer", principal.RoleReviewer)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(72*time.Hour - time.Second)
	start, err := f.staff.StartEnrolment(context.Background(), nm.EnrolToken)
	if err != nil {
		t.Fatalf("a second before expiry: %v", err)
	}
	f.clock.Advance(time.Second)
	if _, err := f.staff.FinishEnrolment(context.Background(), nm.EnrolToken, password, code(t, start.Secret, f.clock.Now()), ""); !apperr.IsCode(err, account.CodeEnrolmentInvalid) {
		t.Fatalf("at expiry: %v", err)
	}
}

func TestStaffSignInNeedsPasswordAndCode(t *testing.T) {
	t.Parallel()
	f := newStaffFixture(t)
	ctx := context.Background()
	m, secret, _ := f.enrol(t, "rev@ops.example.ng", principal.RoleReviewer)
	f.clock.Advance(30 * time.Second) // the enrolment's code is used up
	now := f.clock.Now()
	for _, tc := range []struct {
		name, email, password, code, want string
	}{
		{"wrong password", "rev@ops.example.ng", "wrong horse battery", code(t, secret, now), account.CodeInvalidCredentials},
		{"unknown email", "nobody@ops.example.ng", password, code(t, secret, now), account.CodeInvalidCredentials},
		{"wrong code", "rev@ops.example.ng", password, "123456", account.CodeInvalidOTP},
		{"no code", "rev@ops.example.ng", password, "", account.CodeInvalidOTP},
		{"a code from two minutes ago", "rev@ops.example.ng", password, code(t, secret, now.Add(-2*time.Minute)), account.CodeInvalidOTP},
	} {
		if _, err := f.staff.SignIn(ctx, tc.email, tc.password, tc.code, "10.0.0.9"); !apperr.IsCode(err, tc.want) {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
	}
	c := code(t, secret, now)
	login, err := f.staff.SignIn(ctx, "REV@ops.example.ng ", password, c, "10.0.0.9")
	if err != nil || login.Member.ID != m.ID {
		t.Fatalf("sign in: %v", err)
	}
	if _, err := f.staff.SignIn(ctx, "rev@ops.example.ng", password, c, "10.0.0.9"); !apperr.IsCode(err, account.CodeInvalidOTP) {
		t.Fatalf("the same code twice: %v", err)
	}
	// Every failure is audited with the email tried, the success too.
	f.consumeAudit(t)
	var failures, successes int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE action = 'staff.sign_in_failed' AND details->>'email' <> ''),
		count(*) FILTER (WHERE action = 'staff.sign_in' AND actor_id = $1) FROM staff_audit`, m.ID).Scan(&failures, &successes); err != nil {
		t.Fatal(err)
	}
	if failures != 6 || successes != 1 {
		t.Fatalf("audited %d failures and %d sign-ins, want 6 and 1", failures, successes)
	}
	var tried string
	if err := f.pool.QueryRow(ctx, `SELECT actor_id FROM staff_audit WHERE details->>'email' = 'nobody@ops.example.ng'`).Scan(&tried); err != nil || tried != "unknown" {
		t.Fatalf("an unknown email's attempt: %q %v", tried, err)
	}
}

func TestDisablingAMemberEndsTheirSessionsAtOnce(t *testing.T) {
	t.Parallel()
	f := newStaffFixture(t)
	ctx := context.Background()
	admin, _, adminLogin := f.enrol(t, "admin@ops.example.ng", principal.RoleAdmin)
	disp, secret, login := f.enrol(t, "disp@ops.example.ng", principal.RoleDispatcher)
	if _, err := f.staff.Resolve(ctx, login.Token, "wrong"); !apperr.IsCode(err, account.CodeCSRF) {
		t.Fatalf("a wrong CSRF token: %v", err)
	}
	if _, err := f.staff.SetDisabled(asStaff(admin), admin.ID, true); !apperr.IsCode(err, account.CodeCannotDisableSelf) {
		t.Fatalf("disable yourself: %v", err)
	}
	got, err := f.staff.SetDisabled(asStaff(admin), disp.ID, true)
	if err != nil || got.DisabledAt == nil {
		t.Fatalf("disable: %+v %v", got, err)
	}
	if _, err := f.staff.Resolve(ctx, login.Token, login.CSRF); !apperr.IsCode(err, account.CodeStaffSessionRequired) {
		t.Fatalf("the disabled member's session: %v", err)
	}
	f.clock.Advance(30 * time.Second)
	if _, err := f.staff.SignIn(ctx, "disp@ops.example.ng", password, code(t, secret, f.clock.Now()), ""); !apperr.IsCode(err, account.CodeInvalidCredentials) {
		t.Fatalf("a disabled member signs in: %v", err)
	}
	if _, err := f.staff.Resolve(ctx, adminLogin.Token, adminLogin.CSRF); err != nil {
		t.Fatalf("the admin's own session: %v", err)
	}
	if _, err := f.staff.SetDisabled(asStaff(admin), disp.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.staff.SignIn(ctx, "disp@ops.example.ng", password, code(t, secret, f.clock.Now()), ""); err != nil {
		t.Fatalf("enabled again: %v", err)
	}
	// A session also ends at its time, and on sign-out.
	f.clock.Advance(12 * time.Hour)
	if _, err := f.staff.Resolve(ctx, adminLogin.Token, adminLogin.CSRF); !apperr.IsCode(err, account.CodeStaffSessionRequired) {
		t.Fatalf("an expired session: %v", err)
	}
}

func TestSignOutEndsTheSession(t *testing.T) {
	t.Parallel()
	f := newStaffFixture(t)
	_, _, login := f.enrol(t, "out@ops.example.ng", principal.RoleReviewer)
	if err := f.staff.SignOut(context.Background(), login.Token, "10.0.0.4"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.staff.Resolve(context.Background(), login.Token, login.CSRF); !apperr.IsCode(err, account.CodeStaffSessionRequired) {
		t.Fatalf("after sign-out: %v", err)
	}
}

func TestTheAuditLogIsAppendOnlyAndStoresARedeliveredEventOnce(t *testing.T) {
	t.Parallel()
	f := newStaffFixture(t)
	ctx := context.Background()
	admin, _, _ := f.enrol(t, "admin@ops.example.ng", principal.RoleAdmin)
	org, err := f.acc.CreateOrg(ctx, "Acme Lending", account.PlanGrowth)
	if err != nil {
		t.Fatal(err)
	}
	flagged := account.ReviewFlagged
	if _, err := f.acc.ChangeSettings(asStaff(admin), org.ID, account.Settings{ReviewPolicy: &flagged}); err != nil {
		t.Fatal(err)
	}
	evs := f.consumeAudit(t)
	if len(evs) != 3 { // staff.create, staff.enrol, org.settings
		t.Fatalf("%d staff-audit events", len(evs))
	}
	// A redelivery past the inbox (another consumer group's copy, a
	// restored inbox) is still one row: the event id is the key.
	err = pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
		var a staffaudit.Action
		if err := json.Unmarshal(evs[2].Data, &a); err != nil {
			return err
		}
		return postgres.InsertAudit(ctx, tx, evs[2].ID, a)
	})
	if err != nil {
		t.Fatal(err)
	}
	f.consumeAudit(t) // and through the inbox, every one again
	var n int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM staff_audit`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d rows after redelivery, want 3 (%v)", n, err)
	}
	entries, next, err := f.staff.AuditLog(ctx, account.AuditFilter{OrgID: org.ID})
	if err != nil || len(entries) != 1 || next != "" || entries[0].Action != "org.settings" || entries[0].ActorID != admin.ID ||
		entries[0].Details["reviewPolicy"] != "FLAGGED" || entries[0].IP != "10.0.0.2" || entries[0].Role != "admin" {
		t.Fatalf("the organization's log: %+v %q %v", entries, next, err)
	}
	for _, q := range []string{
		`UPDATE staff_audit SET action = 'nothing.happened'`,
		`DELETE FROM staff_audit`,
		`TRUNCATE staff_audit`,
	} {
		if _, err := f.pool.Exec(ctx, q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v", q, err)
		}
	}
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM staff_audit WHERE action <> 'nothing.happened'`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d rows left, want 3 (%v)", n, err)
	}
}

func TestTheAuditLogPagesNewestFirstWithFilters(t *testing.T) {
	t.Parallel()
	f := newStaffFixture(t)
	ctx := context.Background()
	for i := range 5 {
		f.clock.Advance(time.Minute)
		if _, err := f.staff.Create(adminToken(), "m"+string(rune('a'+i))+"@ops.example.ng", "Member "+string(rune('A'+i)), principal.RoleDispatcher); err != nil {
			t.Fatal(err)
		}
	}
	f.consumeAudit(t)
	var seen []string
	filter := account.AuditFilter{Action: "staff.", ActorID: staffaudit.AdminTokenActor, Limit: 2}
	for range 4 {
		page, next, err := f.staff.AuditLog(ctx, filter)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			seen = append(seen, e.Details["email"].(string))
		}
		if next == "" {
			break
		}
		c, err := account.DecodeAuditCursor(next)
		if err != nil {
			t.Fatal(err)
		}
		filter.After = &c
	}
	if strings.Join(seen, ",") != "me@ops.example.ng,md@ops.example.ng,mc@ops.example.ng,mb@ops.example.ng,ma@ops.example.ng" {
		t.Fatalf("pages: %v", seen)
	}
	if page, _, err := f.staff.AuditLog(ctx, account.AuditFilter{Action: "org."}); err != nil || len(page) != 0 {
		t.Fatalf("another prefix: %v %v", page, err)
	}
}

func TestOrgSettingsChangeEmitsOneEventAndPagesNewestFirst(t *testing.T) {
	t.Parallel()
	f := newStaffFixture(t)
	ctx := context.Background()
	var orgs []account.Org
	for _, name := range []string{"First Lender", "Second Lender", "Third Lender"} {
		o, err := f.acc.CreateOrg(ctx, name, account.PlanGrowth)
		if err != nil {
			t.Fatal(err)
		}
		orgs = append(orgs, o)
	}
	all := account.ReviewAll
	hours := 24
	set := account.Settings{ReviewPolicy: &all, SLAHours: &hours}
	o, err := f.acc.ChangeSettings(adminToken(), orgs[0].ID, set)
	if err != nil || o.ReviewPolicy != "ALL" || o.SLAHours != 24 || o.Version != orgs[0].Version+1 {
		t.Fatalf("change: %+v %v", o, err)
	}
	if _, err := f.acc.ChangeSettings(adminToken(), orgs[0].ID, set); err != nil { // the same again: nothing to do
		t.Fatal(err)
	}
	if _, err := f.acc.ChangeSettings(adminToken(), "org_00000000000000000000000000000000", set); !apperr.IsCode(err, apperr.CodeNotFound) {
		t.Fatalf("an unknown organization: %v", err)
	}
	var events int
	var payload []byte
	if err := f.pool.QueryRow(ctx, `SELECT count(*), max(payload::text) FROM outbox WHERE topic = 'auth-events' AND event_type = 'organization.settings_changed'`).
		Scan(&events, &payload); err != nil || events != 1 {
		t.Fatalf("%d settings_changed events (%v)", events, err)
	}
	if !strings.Contains(string(payload), `"reviewPolicy": "ALL"`) && !strings.Contains(string(payload), `"reviewPolicy":"ALL"`) {
		t.Fatalf("the event: %s", payload)
	}
	if n := len(f.consumeAudit(t)); n != 1 {
		t.Fatalf("%d audit events, want 1 (org.settings)", n)
	}
	first, err := f.acc.Orgs(ctx, "", 2)
	if err != nil || len(first) != 2 || first[0].ID != orgs[2].ID || first[1].ID != orgs[1].ID {
		t.Fatalf("first page: %+v %v", first, err)
	}
	rest, err := f.acc.Orgs(ctx, first[1].ID, 2)
	if err != nil || len(rest) != 1 || rest[0].ID != orgs[0].ID || rest[0].ReviewPolicy != "ALL" || rest[0].SLAHours != 24 {
		t.Fatalf("second page: %+v %v", rest, err)
	}
}
