package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/eventually"
)

// The operations console (gateway /ops/) driven in chromium by our own
// staff: an admin bootstrapped with the admin API enrols with TOTP in the
// page, adds a dispatcher and a reviewer, and reads the audit log; the
// reviewer sees no Staff page and is refused the staff API; a lender's
// session and an API key never reach /ops/v1.

const staffPassword = "correct horse battery"

// enrolToken is the token of an enrolment link (after #enrol=).
func enrolToken(t *testing.T, link string) string {
	t.Helper()
	_, tok, ok := strings.Cut(link, "/ops/#enrol=")
	if !ok || tok == "" {
		t.Fatalf("enrolment link %q", link)
	}
	return tok
}

// bootstrapAdmin creates an admin with the operators' admin token, as
// `kycctl staff create` does, and returns their email and enrolment link.
func bootstrapAdmin(t *testing.T) (string, string) {
	t.Helper()
	email := fmt.Sprintf("admin%d@ops.kycfield.ng", rand.Int64())
	r := P.Admin(t, "POST", "/admin/v1/staff", map[string]any{"email": email, "name": "Ada Obi", "role": "admin"})
	if r.Status != http.StatusCreated {
		t.Fatalf("admin API staff create: %d %s", r.Status, r.Body)
	}
	var d struct{ EnrolURL string }
	r.Decode(t, &d)
	return email, d.EnrolURL
}

// enrolByAPI finishes an enrolment as a programmatic browser (the
// kyc_staff cookie in a jar, the CSRF token on every call) and returns it
// with the member's TOTP secret.
func enrolByAPI(t *testing.T, link string) (*browser, string) {
	t.Helper()
	b := newBrowser(t)
	tok := enrolToken(t, link)
	r := b.call("POST", "/ops/v1/enrolment/start", map[string]any{"token": tok})
	if r.Status != http.StatusOK {
		t.Fatalf("enrolment start: %d %s", r.Status, r.Body)
	}
	var e struct{ TOTPSecret string }
	r.Decode(t, &e)
	r = b.call("POST", "/ops/v1/enrolment/finish", map[string]any{"token": tok, "password": staffPassword, "code": totpCode(t, e.TOTPSecret, time.Now())})
	if r.Status != http.StatusOK {
		t.Fatalf("enrolment finish: %d %s", r.Status, r.Body)
	}
	var s struct{ CSRFToken string }
	r.Decode(t, &s)
	b.csrf = s.CSRFToken
	// The link works once.
	if r := b.call("POST", "/ops/v1/enrolment/start", map[string]any{"token": tok}); r.Status != http.StatusNotFound || r.Code() != "ENROLMENT_INVALID" {
		t.Fatalf("the link again: %d %s", r.Status, r.Body)
	}
	return b, e.TOTPSecret
}

// addStaff adds a member on the Staff page and returns the enrolment link
// it shows once.
func (d *dashPage) addStaff(email, name, role string) string {
	d.t.Helper()
	d.do(chromedp.SetValue(chromedp.ID("staff-email"), email), chromedp.SetValue(chromedp.ID("staff-name"), name),
		chromedp.SetValue(chromedp.ID("staff-role"), role), tap(chromedp.ID("staff-add")))
	d.seeIn("staff-link", "Enrolment link for "+name)
	d.seeIn("staff-list", email)
	return d.value(`document.getElementById("enrol-url").value`)
}

// awaited is the value of a script that returns a promise.
func awaited(d *dashPage, js string) string {
	d.t.Helper()
	v, err := chromedp.Run(d.ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		d.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func TestOpsConsoleStaffAccounts(t *testing.T) {
	t.Parallel()
	adminEmail, adminLink := bootstrapAdmin(t)

	// The admin opens the link: the console shows the secret to type into
	// an authenticator app, then asks for a password and the app's code.
	a := &dashPage{newChromium(t, "ops")}
	a.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(P.GatewayURL+"/ops/#enrol="+enrolToken(t, adminLink)))
	a.see("Welcome, Ada Obi")
	if h := a.value(`location.hash`); h != "#/enrol" {
		t.Fatalf("the token stays in the address: %q", h)
	}
	secret := strings.ReplaceAll(a.value(`document.getElementById("totp-secret").innerText`), " ", "")
	if uri := a.value(`document.getElementById("otpauth-link").getAttribute("href")`); !strings.HasPrefix(uri, "otpauth://totp/") ||
		!strings.Contains(uri, "secret="+secret) {
		t.Fatalf("the otpauth link %q does not carry the key %q", uri, secret)
	}
	a.shot("02-enrolment")
	a.do(chromedp.SendKeys(chromedp.ID("password"), staffPassword), chromedp.SendKeys(chromedp.ID("code"), "000000"), tap(chromedp.ID("enrol-finish")))
	a.seeIn("code-err", "not the current code")
	a.do(chromedp.SetValue(chromedp.ID("code"), totpCode(t, secret, time.Now())), tap(chromedp.ID("enrol-finish")))
	a.seeIn("whoami", "Ada Obi · admin")
	for _, page := range []string{"Organizations", "Staff", "Audit log"} {
		a.seeIn("nav", page)
	}

	// The admin adds a dispatcher and a reviewer; each link is shown once.
	a.do(chromedp.Navigate(P.GatewayURL + "/ops/#/staff"))
	a.see("Add a staff member")
	suffix := rand.Int64()
	dispEmail, revEmail := fmt.Sprintf("disp%d@ops.kycfield.ng", suffix), fmt.Sprintf("rev%d@ops.kycfield.ng", suffix)
	dispLink := a.addStaff(dispEmail, "Bola Ahmed", "dispatcher")
	revLink := a.addStaff(revEmail, "Chidi Eze", "reviewer")
	a.do(chromedp.SetValue(chromedp.ID("staff-email"), dispEmail), chromedp.SetValue(chromedp.ID("staff-name"), "Bola Again"), tap(chromedp.ID("staff-add")))
	a.see("A staff member with this email already exists")
	a.shot("03-staff")

	dispatcher, _ := enrolByAPI(t, dispLink)
	_, revSecret := enrolByAPI(t, revLink)

	// The reviewer signs in on a phone, keyboard only, and sees no Staff
	// page; the staff API refuses them.
	rv := &dashPage{newChromium(t, "ops")}
	rv.do(chromedp.Navigate(P.GatewayURL+"/ops/"), chromedp.WaitVisible(chromedp.ID("email")))
	rv.shot("01-sign-in")
	// The enrolment used this step's code; the next step's is accepted
	// too (clock drift) and not yet used.
	rv.do(chromedp.Focus(chromedp.ID("email")), chromedp.KeyEvent(revEmail), chromedp.KeyEvent("\t"), chromedp.KeyEvent(staffPassword),
		chromedp.KeyEvent("\t"), chromedp.KeyEvent(totpCode(t, revSecret, time.Now().Add(30*time.Second))), chromedp.KeyEvent("\r"))
	rv.seeIn("whoami", "Chidi Eze · reviewer")
	if nav := rv.value(`document.getElementById("nav").innerText`); strings.Contains(nav, "Staff") || strings.Contains(nav, "Audit") ||
		!strings.Contains(nav, "Reviews") || !strings.Contains(nav, "Organizations") {
		t.Fatalf("the reviewer's pages: %q", nav)
	}
	rv.do(chromedp.Navigate(P.GatewayURL + "/ops/#/staff"))
	rv.see("Reviews") // sent to their first page instead
	if got := rv.value(`location.hash`); got == "#/staff" {
		t.Fatal("the reviewer was shown the Staff page")
	}
	if w := rv.value(`String(document.documentElement.scrollWidth)`); w != "360" {
		t.Errorf("at 360 px the console is %s px wide", w)
	}
	// The page's own api.js (the module instance the page imported, with
	// its CSRF token) asks to add a member: the role is refused.
	if got := awaited(rv, `import("/ops/api.js").then(async (m) => {
		try { await m.api("POST", "/staff", {email: "x@y.ng", name: "X Y", role: "admin"}); return "created"; }
		catch (e) { return e.status + " " + e.code; } })`); got != "403 ROLE_REQUIRED" {
		t.Fatalf("the reviewer's POST /ops/v1/staff: %s", got)
	}

	// A lender's dashboard session and an API key never reach /ops/v1.
	lender := newBrowser(t)
	lender.signUp()
	orgID := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, orgID, "test")
	for _, path := range []string{"/ops/v1/me", "/ops/v1/staff"} {
		if r := lender.call("GET", path, nil); r.Status != http.StatusUnauthorized || r.Code() != "STAFF_SESSION_REQUIRED" {
			t.Errorf("a lender's session on %s: %d %s", path, r.Status, r.Body)
		}
		if r := P.API(t, "GET", path, key, nil); r.Status != http.StatusUnauthorized || r.Code() != "STAFF_SESSION_REQUIRED" {
			t.Errorf("an API key on %s: %d %s", path, r.Status, r.Body)
		}
	}
	if r := P.API(t, "POST", "/ops/v1/staff", key, map[string]any{"email": "k@y.ng", "name": "Key Holder", "role": "admin"}); r.Status != http.StatusUnauthorized {
		t.Errorf("an API key creating staff: %d %s", r.Status, r.Body)
	}

	// The admin sets an organization's review policy on the Organizations page.
	a.do(chromedp.Navigate(P.GatewayURL + "/ops/#/orgs"))
	a.see(orgID)
	a.do(chromedp.SetValue(chromedp.ID("sla-"+orgID), "0"), tap(chromedp.CSS(`tr[data-id="`+orgID+`"] button`)))
	a.see("SLA target must be a whole number of hours from 1 to 720")
	a.do(chromedp.SetValue(chromedp.ID("policy-"+orgID), "FLAGGED"), chromedp.SetValue(chromedp.ID("sla-"+orgID), "48"),
		tap(chromedp.CSS(`tr[data-id="`+orgID+`"] button`)))
	a.seeIn("status-"+orgID, "Saved: FLAGGED, 48 hours")
	a.shot("05-organizations")

	// Disabling the dispatcher ends their session at once.
	if r := dispatcher.call("GET", "/ops/v1/me", nil); r.Status != http.StatusOK {
		t.Fatalf("the dispatcher's session: %d %s", r.Status, r.Body)
	}
	a.do(chromedp.Navigate(P.GatewayURL + "/ops/#/staff"))
	a.see(dispEmail)
	a.do(tap(chromedp.CSS(`button[aria-label="Disable Bola Ahmed"]`)))
	a.do(chromedp.WaitVisible(chromedp.CSS(`button[aria-label="Enable Bola Ahmed"]`)))
	if r := dispatcher.call("GET", "/ops/v1/me", nil); r.Status != http.StatusUnauthorized || r.Code() != "STAFF_SESSION_REQUIRED" {
		t.Fatalf("the disabled dispatcher's session: %d %s", r.Status, r.Body)
	}

	// The audit log lists each of these actions, once the consumer has
	// stored them (the disable is the last one written).
	eventually.True(t, 30*time.Second, "the staff.disable entry in the audit log", func() bool {
		return strings.Contains(awaited(a, `import("/ops/api.js").then((m) => m.api("GET", "/audit?action=staff.disable")).then((d) => JSON.stringify(d))`),
			`"action":"staff.disable"`)
	})
	a.do(chromedp.Navigate(P.GatewayURL + "/ops/#/audit"))
	a.see("Audit log")
	for _, action := range []string{"staff.create", "staff.enrol", "staff.sign_in", "org.settings", "staff.disable"} {
		a.seeIn("audit-rows", action)
	}
	a.seeIn("audit-rows", revEmail) // the reviewer's creation
	a.shot("04-audit")
	// The bootstrap, made with the operators' admin token.
	a.do(chromedp.Navigate(P.GatewayURL + "/ops/#/audit?actorId=admin-token&action=staff.create"))
	a.seeIn("audit-rows", adminEmail)
	a.seeIn("audit-rows", "operators' admin token")
	// Filtered by the address: the organization's entries only.
	a.do(chromedp.Navigate(P.GatewayURL + "/ops/#/audit?orgId=" + orgID))
	a.seeIn("audit-rows", "org.settings")
	if rows := a.value(`String(document.querySelectorAll("#audit-rows tbody tr").length)`); rows != "1" {
		t.Fatalf("the organization's log has %s rows", rows)
	}

	// Sign out ends the session; the page asks to sign in again.
	a.do(tap(chromedp.ID("sign-out")))
	a.see("Sign in to operations")
	if r := P.Do(t, harness.Request{Method: "GET", URL: P.GatewayURL + "/ops/v1/session"}); r.Status != http.StatusUnauthorized {
		t.Fatalf("a session without a cookie: %d %s", r.Status, r.Body)
	}
}
