package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// The client dashboard (gateway /dashboard/) driven in Debian's chromium
// as a lender's staff would use it, against the whole platform.

// dashPage is one person's browser on the dashboard.
type dashPage struct{ *chromium }

func newDashPage(t *testing.T) *dashPage {
	t.Helper()
	d := &dashPage{newChromium(t, "dashboard")}
	d.do(chromedp.EmulateViewport(1280, 900))
	return d
}

// signUp creates an account through the page and returns its email.
func (d *dashPage) signUp(shoot bool) string {
	d.t.Helper()
	email := fmt.Sprintf("owner%d@lender.ng", rand.Int64())
	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/signup"), chromedp.WaitVisible(chromedp.ID("org")),
		chromedp.SendKeys(chromedp.ID("org"), "Lagos Microfinance Ltd"), chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), "short"), tap(chromedp.ID("sign-up")))
	// The API's complaint is shown in words beside the field that caused it.
	d.seeIn("password-err", "at least 10 characters")
	if shoot {
		d.shot("01-sign-up-error")
	}
	d.do(chromedp.SetValue(chromedp.ID("password"), "correct horse battery"), tap(chromedp.ID("sign-up")))
	d.see("Your keys")
	return email
}

// seeIn waits until the element with id shows text.
func (d *dashPage) seeIn(id, text string) {
	d.t.Helper()
	if _, err := chromedp.Run(d.ctx, chromedp.PollFunction[bool](`(id, s) => (document.getElementById(id)?.innerText || "").includes(s)`,
		chromedp.WithPollingArgs(id, text), chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(time.Minute))); err != nil {
		d.t.Fatalf("#%s never showed %q: %v\nscreen: %s", id, text, err, d.screen())
	}
}

func (d *dashPage) value(js string) string {
	d.t.Helper()
	v, err := chromedp.Run(d.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		d.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// fitsPhone checks the page needs no sideways scrolling at 360 px.
func (d *dashPage) fitsPhone(shot string) {
	d.t.Helper()
	d.do(chromedp.EmulateViewport(360, 800))
	time.Sleep(200 * time.Millisecond)
	if w := d.value(`String(document.documentElement.scrollWidth)`); w != "360" {
		d.t.Errorf("at 360 px the page is %s px wide: it scrolls sideways", w)
	}
	d.shot(shot)
	d.do(chromedp.EmulateViewport(1280, 900))
}

// transferred is what the page has downloaded so far, headers included,
// API calls excepted (reported in BENCHMARKS.md, not asserted).
func (d *dashPage) transferred() float64 {
	d.t.Helper()
	n, err := chromedp.Run(d.ctx, chromedp.Evaluate[float64](`[...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")]
		.filter((e) => !e.name.includes("/v1/")).reduce((n, e) => n + e.transferSize, 0)`))
	if err != nil {
		d.t.Fatalf("transferred: %v", err)
	}
	return n
}

// TestDashboardAppKeys: sign up in the page, create a sandbox key, use it
// from a plain HTTP client, revoke it in the page and see the next call
// refused; log out and in again.
func TestDashboardAppKeys(t *testing.T) {
	t.Parallel()
	d := newDashPage(t)
	email := d.signUp(true)
	d.see("Sandbox: test data only")
	// Sign-up page, then the keys page: the first load of a new user.
	d.t.Logf("dashboard first load (sign-up and keys pages): %.0f bytes transferred", d.transferred())

	d.do(chromedp.SetValue(chromedp.ID("key-name"), "loan-service"), tap(chromedp.ID("create-key")), chromedp.WaitVisible(chromedp.ID("new-key")))
	key := d.value(`document.getElementById("new-key").value`)
	d.see("will not be shown again")
	d.see("loan-service")
	d.shot("02-key-created")
	if r := P.API(t, "GET", "/api/v1/customers", key, nil); r.Status != http.StatusOK {
		t.Fatalf("the key from the page: %d %s", r.Status, r.Body)
	}
	if got := d.value(`document.querySelector("tbody").innerText`); !strings.Contains(got, key[:12]) || strings.Contains(got, key) {
		t.Fatalf("the list must show the prefix and never the key: %s", got)
	}
	d.fitsPhone("03-keys-360px")

	// Developer: a live key is refused, in words, beside the form.
	d.do(chromedp.SetValue(chromedp.ID("key-env"), "live"), tap(chromedp.ID("create-key")))
	d.see("Live (production) access requires the Growth or Enterprise plan")

	d.do(tap(chromedp.CSS(`tbody button.danger`)), chromedp.WaitVisible(chromedp.ID("confirm-revoke")))
	d.see("cannot be undone")
	d.do(tap(chromedp.ID("confirm-revoke")))
	d.see("Revoked")
	waitUntilRefused(t, P.GatewayURL, key, time.Second)

	d.do(tap(chromedp.ID("logout")), chromedp.WaitVisible(chromedp.ID("log-in")))
	d.do(chromedp.SendKeys(chromedp.ID("email"), email), chromedp.SendKeys(chromedp.ID("password"), "correct horse battery"), tap(chromedp.ID("log-in")))
	d.see("Your keys")
	d.see("Revoked")
}

// TestDashboardAppPlan: on Developer a live key is refused; the upgrade
// to Growth is priced before it is confirmed, and then a live key can be
// created in the page and works.
func TestDashboardAppPlan(t *testing.T) {
	t.Parallel()
	d := newDashPage(t)
	d.signUp(false)
	d.do(chromedp.SetValue(chromedp.ID("key-env"), "live"), tap(chromedp.ID("create-key")))
	d.see("Live (production) access requires the Growth or Enterprise plan")
	// The refusal says where to lift it.
	d.do(tap(chromedp.CSS(`.form-error a[href="#/plan"]`)))
	d.see("Invoice preview")

	// Live chosen in the header on Developer: the page says why it shows nothing.
	d.do(tap(chromedp.CSS(`input[name=env][value=live]`)), tap(chromedp.CSS(`nav a[href="#/customers"]`)))
	d.see("Live (production) access requires the Growth or Enterprise plan")
	if d.value(`String(document.getElementById("sandbox").hidden)`) != "true" {
		t.Fatal("the sandbox banner shows while Live is chosen")
	}
	d.do(tap(chromedp.CSS(`input[name=env][value=test]`)))
	d.see("Sandbox: test data only")

	d.do(chromedp.Navigate(P.GatewayURL + "/dashboard/#/plan"))
	d.see("Invoice preview")
	d.seeIn("current-plan", "Developer")
	if n := d.value(`String(document.querySelectorAll("svg.chart rect").length)`); n != "30" {
		t.Errorf("the usage chart has %s days, want 30", n)
	}
	d.do(tap(chromedp.ID("choose-growth")), chromedp.WaitVisible(chromedp.ID("confirm-plan")))
	d.seeIn("proration", "this month's invoice from $0.00 to $")
	d.shot("04-plan-change")
	d.do(tap(chromedp.ID("confirm-plan")))
	d.seeIn("current-plan", "Growth")
	d.see("Growth plan")

	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/keys"), chromedp.WaitVisible(chromedp.ID("create-key")),
		chromedp.SetValue(chromedp.ID("key-env"), "live"), tap(chromedp.ID("create-key")), chromedp.WaitVisible(chromedp.ID("new-key")))
	key := d.value(`document.getElementById("new-key").value`)
	if !strings.HasPrefix(key, "mk_live_") {
		t.Fatalf("live key: %q", key)
	}
	waitForStatus(t, P.GatewayURL, key, http.StatusOK, "", 5*time.Second)
}

// testKey creates a sandbox key in the page and returns it.
func (d *dashPage) testKey() string {
	d.t.Helper()
	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/keys"), chromedp.WaitVisible(chromedp.ID("create-key")),
		tap(chromedp.ID("create-key")), chromedp.WaitVisible(chromedp.ID("new-key")))
	return d.value(`document.getElementById("new-key").value`)
}

// surname is a name no other test uses, so a search finds one customer.
func surname() string {
	b := []byte("Eze")
	for range 8 {
		b = append(b, byte('a'+rand.IntN(26)))
	}
	return string(b)
}

// TestDashboardAppCustomers: a sandbox customer created with the page's
// key is found by name, its page shows the timeline and the evidence
// photos, and its report downloads as a PDF; another organization's
// customer id says "not found" in words.
func TestDashboardAppCustomers(t *testing.T) {
	t.Parallel()
	d := newDashPage(t)
	d.signUp(false)
	d.plan("growth") // the test's calls would strain Developer's 100 a day
	key := d.testKey()
	name := surname()
	c := create(t, key, newCustomer(map[string]any{"firstName": "Chiamaka", "lastName": name}))
	create(t, key, newCustomer(nil))
	waitOverall(t, key, c.ID, "VERIFIED")
	deadline := time.Now().Add(20 * time.Second)
	for r := P.API(t, "GET", "/api/v1/customers/"+c.ID+"/report", key, nil); r.Status != http.StatusOK; r = P.API(t, "GET", "/api/v1/customers/"+c.ID+"/report", key, nil) {
		if time.Now().After(deadline) {
			t.Fatalf("the report never came: %d %s", r.Status, r.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}

	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/customers"), chromedp.WaitVisible(chromedp.ID("search")))
	d.see("1-2 of 2")
	d.do(chromedp.SendKeys(chromedp.ID("search"), strings.ToLower(name)), tap(chromedp.ID("search-go")))
	d.see("1-1 of 1")
	d.see("Chiamaka " + name)
	d.shot("05-customers")
	d.do(tap(chromedp.CSS(`a[href="#/customers/` + c.ID + `"]`)))
	d.see("Timeline")
	d.see("Evidence photos")
	// What the visit found, in words: where, how precisely, whom the agent met.
	for _, w := range []string{"Expected location", "GPS accuracy ±", "Resident interviewed", "Building", "from completion"} {
		d.see(w)
	}
	d.do(chromedp.PollFunction[chromedp.Void](`() => [...document.querySelectorAll(".photos img")].every((i) => i.complete && i.naturalWidth > 0)`,
		chromedp.WithPollingTimeout(time.Minute)))
	d.shot("06-customer")

	dir := t.TempDir()
	d.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir})
		return err
	}), tap(chromedp.ID("download-report")))
	d.seeIn("report-status", "Report downloaded")
	pdf := filepath.Join(dir, "kyc-report-"+c.ID+".pdf")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(pdf); err == nil && bytes.HasPrefix(b, []byte("%PDF-")) && bytes.Contains(b, []byte("%%EOF")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no PDF downloaded in %s", dir)
		}
	}

	// Cursor pages: 22 customers are two pages of 20, forward and back.
	for range 20 {
		create(t, key, newCustomer(nil))
	}
	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/customers"), chromedp.WaitVisible(chromedp.ID("search")),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("search").value = ""`), tap(chromedp.ID("search-go")))
	d.see("1-20 of 22")
	d.do(tap(chromedp.ID("next-page")))
	d.see("21-22 of 22")
	if n := d.value(`String(document.querySelectorAll("#results tbody tr").length)`); n != "2" {
		t.Fatalf("the second page has %s rows", n)
	}
	d.do(tap(chromedp.ID("prev-page")))
	d.see("1-20 of 22")

	// Another organization's customer: not found, in words.
	_, otherKey := P.NewKey(t, P.NewOrg(t, "developer"), "test")
	other := create(t, otherKey, newCustomer(nil))
	d.do(chromedp.Navigate(P.GatewayURL + "/dashboard/#/customers/" + other.ID))
	d.seeIn("customer-error", "Customer not found")
}

// TestDashboardAppFlags: a live visit's flags show on the customer's page
// as sentences, most serious first, with their severity in words.
func TestDashboardAppFlags(t *testing.T) {
	t.Parallel()
	d := newDashPage(t)
	d.signUp(false)
	d.plan("growth")
	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/keys"), chromedp.WaitVisible(chromedp.ID("create-key")),
		chromedp.SetValue(chromedp.ID("key-env"), "live"), tap(chromedp.ID("create-key")), chromedp.WaitVisible(chromedp.ID("new-key")))
	key := d.value(`document.getElementById("new-key").value`)
	lga := "Ilorin East" // each live test of Kwara has its own LGA, so its own agent gets the task
	agent := newAgent(t, "Kemi Adebayo", []string{"Kwara"}, []string{lga})
	// A mock-location fix (accuracy 0) and a visit of a moment.
	c, _ := agentVisit(t, agent, key, map[string]any{"streetName": "Unity Road", "city": "Ilorin", "lga": lga, "state": "Kwara"},
		map[string]any{"latitude": 8.496612, "longitude": 4.542131, "accuracy": 0}, scenePhoto(11), scenePhoto(12))

	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/customers"), chromedp.WaitVisible(chromedp.ID("search")),
		tap(chromedp.CSS(`input[name=env][value=live]`)))
	d.do(chromedp.Navigate(P.GatewayURL + "/dashboard/#/customers/" + c))
	d.see("Flags (")
	// The promise operations made for the live address, now kept.
	d.seeIn("due-0", "Was due by ")
	d.see("Critical: The check-in fix reports an accuracy of 0 m")
	d.see("Warning: The visit lasted")
	first := d.value(`document.querySelector("ul.flags li").textContent`)
	if !strings.HasPrefix(first, "Critical: ") || !strings.Contains(first, "SUSPECT_LOCATION") {
		t.Fatalf("the first flag shown: %q", first)
	}
	d.fitsPhone("07-customer-flags")
}

// TestDashboardAppWebhooks: an endpoint on a loopback receiver is added
// in the page, its secret revealed and rotated, a test event shows in
// the delivery log; with the receiver failing the delivery fails, and
// once it answers again the page's retry succeeds.
func TestDashboardAppWebhooks(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	recv := newHookReceiver(t, func(int) int {
		if failing.Load() {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	d := newDashPage(t)
	d.signUp(false)
	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/webhooks"), chromedp.WaitVisible(chromedp.ID("hook-url")),
		chromedp.SendKeys(chromedp.ID("hook-url"), "ftp://nowhere"), tap(chromedp.ID("add-endpoint")))
	d.seeIn("hook-url-err", "must use http or https")
	d.do(chromedp.SetValue(chromedp.ID("hook-url"), recv.URL+"/kyc"), chromedp.SendKeys(chromedp.ID("hook-description"), "Loan origination"),
		tap(chromedp.ID("add-endpoint")), chromedp.WaitVisible(chromedp.ID("hook-secret")))
	secret := d.value(`document.getElementById("hook-secret").value`)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q", secret)
	}
	d.do(tap(chromedp.CSS(`#secret-slot button.secondary`)), tap(chromedp.ID("reveal-secret")), chromedp.WaitVisible(chromedp.ID("hook-secret")))
	if got := d.value(`document.getElementById("hook-secret").value`); got != secret {
		t.Fatalf("revealed %q, created %q", got, secret)
	}

	d.do(tap(chromedp.ID("send-test")))
	d.do(chromedp.WaitVisible(chromedp.CSS(`tr[data-status="succeeded"]`)))
	d.see("webhook.test")
	if n := len(recv.ofType(t, secret, "webhook.test")); n != 1 {
		t.Fatalf("the receiver got %d test events", n)
	}

	failing.Store(true)
	d.do(tap(chromedp.ID("send-test")))
	d.do(chromedp.WaitVisible(chromedp.CSS(`tr[data-status="exhausted"]`)))
	d.see("receiver says 500: try again later")
	d.shot("07-webhook-log")
	// Failures alone: the log filtered to "Failed" shows the one.
	choose := func(status string) {
		d.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.getElementById("delivery-status");
			s.value = %q; s.dispatchEvent(new Event("change")); })()`, status)))
	}
	choose("exhausted")
	d.do(chromedp.PollFunction[chromedp.Void](`() => { const rows = document.querySelectorAll("tr[data-status]");
		return rows.length === 1 && rows[0].dataset.status === "exhausted"; }`, chromedp.WithPollingTimeout(time.Minute)))
	choose("")
	d.do(chromedp.PollFunction[chromedp.Void](`() => document.querySelectorAll("tr[data-status]").length === 2`, chromedp.WithPollingTimeout(time.Minute)))
	failing.Store(false)
	d.do(tap(chromedp.CSS(`tr[data-status="exhausted"] button`)))
	d.do(chromedp.PollFunction[chromedp.Void](`() => document.querySelectorAll('tr[data-status="succeeded"]').length === 2`,
		chromedp.WithPollingTimeout(time.Minute)))

	// More than a page of deliveries: the older ones are a page away.
	id := strings.TrimPrefix(d.value(`location.hash`), "#/webhooks/")
	for range 20 {
		if d.api("POST", "/api/v1/webhooks/"+id+"/test", nil) == "" {
			t.Fatal("test event refused")
		}
	}
	d.do(tap(chromedp.ID("refresh-log")))
	d.seeIn("log-range", "Deliveries 1-20")
	d.do(tap(chromedp.ID("older-deliveries")))
	d.seeIn("log-range", "Deliveries 21-22")
	d.do(tap(chromedp.ID("newer-deliveries")))
	d.seeIn("log-range", "Deliveries 1-20")

	d.do(tap(chromedp.ID("rotate-secret")), tap(chromedp.ID("confirm-action")))
	d.see("New signing secret")
	if got := d.value(`document.getElementById("hook-secret").value`); got == secret || !strings.HasPrefix(got, "whsec_") {
		t.Fatalf("rotated secret %q", got)
	}
	d.do(tap(chromedp.ID("toggle-endpoint")))
	d.seeIn("endpoint-state", "Disabled")
	d.do(tap(chromedp.ID("delete-endpoint")), tap(chromedp.ID("confirm-action")))
	d.see("No endpoints yet.")
}

// TestDashboardAppWhiteLabel: after moving to Enterprise in the page, the
// White label page appears; its preview follows the form, and what it
// saves is what the API (and so the next report) uses.
func TestDashboardAppWhiteLabel(t *testing.T) {
	t.Parallel()
	d := newDashPage(t)
	d.signUp(false)
	key := d.testKey()
	if d.value(`String(!!document.querySelector('nav a[href="#/branding"]'))`) != "false" {
		t.Fatal("White label offered on the Developer plan")
	}
	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/plan"), tap(chromedp.ID("choose-enterprise")), tap(chromedp.ID("confirm-plan")))
	d.seeIn("current-plan", "Enterprise")

	img := image.NewRGBA(image.Rect(0, 0, 60, 20))
	for x := range 60 {
		for y := range 20 {
			img.Set(x, y, color.White)
			if x > 4 && x < 16 && y > 4 && y < 16 {
				img.Set(x, y, color.RGBA{R: 245, G: 158, B: 11, A: 255})
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	logo := filepath.Join(t.TempDir(), "logo.png")
	if err := os.WriteFile(logo, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	d.do(tap(chromedp.CSS(`nav a[href="#/branding"]`)), chromedp.WaitVisible(chromedp.ID("brand-name")),
		chromedp.SendKeys(chromedp.ID("brand-name"), "Zenith Microfinance"), chromedp.SetValue(chromedp.ID("brand-colour"), "#7a1fa2"),
		chromedp.SetUploadFiles(chromedp.ID("brand-logo"), []string{logo}))
	d.do(chromedp.PollFunction[chromedp.Void](`() => !!document.querySelector(".report-preview .band img")`, chromedp.WithPollingTimeout(time.Minute)))
	if got := d.value(`document.querySelector(".report-preview .band").innerText`); got != "Zenith Microfinance" {
		t.Fatalf("the preview shows %q", got)
	}
	d.do(tap(chromedp.ID("save-branding")))
	d.seeIn("branding-status", "Saved")
	d.shot("08-white-label")
	r := P.API(t, "GET", "/api/v1/reports/branding", key, nil)
	var b struct {
		DisplayName, AccentColour string
		HasLogo                   bool
	}
	r.Decode(t, &b)
	if b.DisplayName != "Zenith Microfinance" || !strings.EqualFold(b.AccentColour, "#7a1fa2") || !b.HasLogo {
		t.Fatalf("branding saved: %s", r.Body)
	}

	// Back later to change the colour only: the logo stays, with no file
	// to choose again; then the person removes it on purpose.
	branding := func(change chromedp.Action[chromedp.Void]) {
		d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/keys"), chromedp.WaitVisible(chromedp.ID("create-key")),
			tap(chromedp.CSS(`nav a[href="#/branding"]`)), chromedp.WaitVisible(chromedp.ID("remove-logo")), change, tap(chromedp.ID("save-branding")))
		d.seeIn("branding-status", "Saved")
		r = P.API(t, "GET", "/api/v1/reports/branding", key, nil)
		b.HasLogo = false
		r.Decode(t, &b)
	}
	branding(chromedp.SetValue(chromedp.ID("brand-colour"), "#0b6e4f"))
	if !strings.EqualFold(b.AccentColour, "#0b6e4f") || !b.HasLogo {
		t.Fatalf("after changing the colour only: %s", r.Body)
	}
	branding(tap(chromedp.ID("remove-logo")))
	if b.HasLogo {
		t.Fatalf("the logo stayed after Remove: %s", r.Body)
	}
}

// unlabelledJS lists the controls a screen reader could not name.
const unlabelledJS = `[...document.querySelectorAll("input, select, textarea, button, a[href]")].filter((e) => {
	if (e.offsetParent === null && e.type !== "radio") return false;
	const named = (e.labels && e.labels.length) || e.getAttribute("aria-label") || e.getAttribute("aria-labelledby") ||
		(e.tagName === "BUTTON" || e.tagName === "A") && e.innerText.trim();
	return !named;
}).map((e) => e.outerHTML.slice(0, 80)).join("\n")`

// TestDashboardAppAccessible: every page at 360 px needs no sideways
// scrolling and names every control; the keyboard alone skips to the
// content and creates a key.
func TestDashboardAppAccessible(t *testing.T) {
	t.Parallel()
	d := newDashPage(t)
	d.signUp(false)
	d.plan("enterprise") // every page, White label included
	key := d.testKey()
	c := create(t, key, newCustomer(map[string]any{"firstName": "Adaeze", "lastName": surname()}))
	waitOverall(t, key, c.ID, "VERIFIED")
	recv := newHookReceiver(t, nil)
	if r := d.api("POST", "/api/v1/webhooks", map[string]any{"url": recv.URL + "/kyc"}); r == "" {
		t.Fatal("no webhook")
	}
	d.do(chromedp.EmulateViewport(360, 800))
	for _, page := range []struct{ hash, shows string }{
		{"keys", "Your keys"}, {"plan", "Invoice preview"}, {"customers", "Adaeze"}, {"customers/" + c.ID, "Timeline"},
		{"webhooks", recv.URL}, {"branding", "Preview"},
	} {
		d.do(chromedp.Navigate(P.GatewayURL + "/dashboard/#/" + page.hash))
		d.see(page.shows)
		if page.hash == "webhooks" {
			d.do(tap(chromedp.CSS(`td a`)))
			d.see("Delivery log")
		}
		time.Sleep(200 * time.Millisecond)
		if w := d.value(`String(document.documentElement.scrollWidth)`); w != "360" {
			t.Errorf("#/%s at 360 px is %s px wide", page.hash, w)
		}
		if bad := d.value(unlabelledJS); bad != "" {
			t.Errorf("#/%s has controls without a name:\n%s", page.hash, bad)
		}
		if strings.HasPrefix(page.hash, "customers/") {
			d.do(chromedp.PollFunction[chromedp.Void](`() => [...document.querySelectorAll(".photos img")].every((i) => i.complete && i.naturalWidth > 0)`,
				chromedp.WithPollingTimeout(time.Minute)))
			d.shot("09-customer-360px")
		}
	}

	// Keyboard only: the first Tab reaches "Skip to content", Enter moves
	// into the page; typing a name and Enter in the form creates a key.
	d.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(P.GatewayURL+"/dashboard/#/keys"), chromedp.Reload(),
		chromedp.WaitVisible(chromedp.ID("key-name")), chromedp.KeyEvent("\t"))
	if got := d.value(`document.activeElement.innerText`); got != "Skip to content" {
		t.Fatalf("the first Tab reached %q", got)
	}
	d.do(chromedp.KeyEvent("\r"))
	if got := d.value(`document.activeElement.id + location.hash`); got != "main#/keys" {
		t.Fatalf("after Skip to content: %q", got)
	}
	d.do(chromedp.Focus(chromedp.ID("key-name")), chromedp.KeyEvent("\b\b\b\b\b\b\b"), chromedp.KeyEvent("keyboard-made"), chromedp.KeyEvent("\r"))
	d.do(chromedp.WaitVisible(chromedp.ID("new-key")))
	if d.value(`document.activeElement.id`) != "new-key" {
		t.Fatalf("focus after creating a key is on %q, not the key to copy", d.value(`document.activeElement.id`))
	}
	// The list is redrawn with the new key after the secret is shown.
	d.do(chromedp.PollFunction[chromedp.Void](`() => document.querySelector("tbody").innerText.includes("keyboard-made")`,
		chromedp.WithPollingTimeout(time.Minute)))
	// A confirmation's Cancel puts the keyboard back where it was.
	d.do(chromedp.Focus(chromedp.CSS(`tbody button[data-act="revoke"]`)), chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.ID("confirm-revoke")))
	if d.value(`document.activeElement.id`) != "confirm-revoke" {
		t.Fatal("the confirmation does not take the focus")
	}
	d.do(chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"))
	if d.value(`document.activeElement.dataset.act || ""`) != "revoke" {
		t.Fatalf("after Cancel the focus is on %q", d.value(`document.activeElement.outerHTML`))
	}
}

// plan moves the page's organization to plan and reloads the page.
func (d *dashPage) plan(plan string) {
	d.t.Helper()
	if d.api("PUT", "/dashboard/v1/plan", map[string]any{"plan": plan}) == "" {
		d.t.Fatalf("plan %s refused", plan)
	}
	d.do(chromedp.Reload())
}

// api calls the platform from the page, with its session.
func (d *dashPage) api(method, path string, body any) string {
	d.t.Helper()
	b, _ := json.Marshal(body)
	v, err := chromedp.Run(d.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(async () => {
		const me = await (await fetch("/dashboard/v1/me")).json();
		const r = await fetch(%q, {method: %q, body: %q, headers: {"Content-Type": "application/json", "X-CSRF-Token": me.data.csrfToken, "KYC-Environment": "test"}});
		return r.ok ? await r.text() : "";
	})()`, path, method, string(b)), chromedp.EvalAwaitPromise))
	if err != nil {
		d.t.Fatalf("fetch %s: %v", path, err)
	}
	return v
}
