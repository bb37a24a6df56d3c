package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The dispatcher's tools in the operations console, in chromium against
// the whole platform: a live address waits in an LGA no agent covers
// (Gusau, Zamfara: no other test works there); the dispatcher sees it red
// on the coverage page and its map, opens the state's queue from the map
// by keyboard, creates an agent for the area from "Create an agent here",
// and sees the address assigned in the queue, which refreshes itself with
// a new address while keeping the selection, and reassigns from it; the
// lender's status shows the promise (dueBy), the sandbox none.

// signInStaff creates a member with role through the operators' admin
// API, enrols them by API, and signs them in to the console in chromium.
func signInStaff(t *testing.T, role, name string) *dashPage {
	t.Helper()
	email := fmt.Sprintf("%s%d@ops.kycfield.ng", role, rand.Int64())
	r := P.Admin(t, "POST", "/admin/v1/staff", map[string]any{"email": email, "name": name, "role": role})
	if r.Status != http.StatusCreated {
		t.Fatalf("admin API staff create: %d %s", r.Status, r.Body)
	}
	var d struct{ EnrolURL string }
	r.Decode(t, &d)
	_, secret := enrolByAPI(t, d.EnrolURL)
	p := &dashPage{newChromium(t, "ops")}
	p.do(chromedp.EmulateViewport(1280, 900), chromedp.Navigate(P.GatewayURL+"/ops/"), chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), email), chromedp.SendKeys(chromedp.ID("password"), staffPassword),
		// The enrolment used this step's code; the next step's is accepted too.
		chromedp.SendKeys(chromedp.ID("code"), totpCode(t, secret, time.Now().Add(30*time.Second))), tap(chromedp.ID("sign-in")))
	p.seeIn("whoami", name+" · "+role)
	return p
}

func TestOpsConsoleCoverageAgentAndQueue(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, live := P.NewKey(t, org, "live")
	_, sandbox := P.NewKey(t, org, "test")
	before := time.Now()
	c := create(t, live, newCustomer(map[string]any{"addresses": []map[string]any{
		{"streetNumber": "3", "streetName": "Sokoto Road", "city": "Gusau", "lga": "Gusau", "state": "Zamfara"}}}))
	adr := c.Addresses[0].ID
	// The promise arrives with verification's first event on the address.
	var due *time.Time
	for deadline := time.Now().Add(20 * time.Second); due == nil; time.Sleep(50 * time.Millisecond) {
		if _, s := status(t, live, c.ID); len(s.Addresses) > 0 {
			due = s.Addresses[0].DueBy
		}
		if due == nil && time.Now().After(deadline) {
			t.Fatal("the live address never showed a dueBy")
		}
	}
	if due.Before(before.Add(72*time.Hour - time.Second)) {
		t.Fatalf("live dueBy %s, want 72 h after %s", due, before)
	}
	sc := create(t, sandbox, newCustomer(nil))
	if _, st := status(t, sandbox, sc.ID); len(st.Addresses) == 0 || st.Addresses[0].DueBy != nil {
		t.Fatalf("a sandbox address has a dueBy: %+v", st.Addresses)
	}
	for _, path := range []string{"/ops/v1/queue", "/ops/v1/coverage", "/ops/v1/agents"} {
		if r := P.API(t, "GET", path, live, nil); r.Status != http.StatusUnauthorized {
			t.Errorf("an API key on %s: %d %s", path, r.Status, r.Body)
		}
	}

	d := signInStaff(t, "dispatcher", "Dayo Adeyemi")
	area := `tr[data-area="Zamfara|Gusau"]`
	d.do(chromedp.Navigate(P.GatewayURL + "/ops/#/coverage"))
	d.see("Create an agent here")
	if got := d.value(`document.querySelector('` + area + `').innerText`); !strings.Contains(got, "Uncovered") || !strings.Contains(got, "Gusau") {
		t.Fatalf("Gusau's row: %q", got)
	}
	if cls := d.value(`document.getElementById("state-zamfara").getAttribute("class")`); !strings.Contains(cls, "uncovered") {
		t.Fatalf("Zamfara on the map: class %q", cls)
	}
	if label := d.value(`document.getElementById("state-zamfara").getAttribute("aria-label")`); !strings.Contains(label, "no agent") {
		t.Fatalf("Zamfara's label says nothing of the missing agent: %q", label)
	}
	d.shot("11-coverage-map")
	d.fitsPhone("14-coverage-phone")

	// From the map, by keyboard: Zamfara's queue.
	d.do(chromedp.Focus(chromedp.ID("state-zamfara")), chromedp.KeyEvent("\r"))
	d.seeIn("queue-table", "Sokoto Road")
	if h := d.value(`location.hash`); h != "#/queue?state=Zamfara" {
		t.Fatalf("the map opened %q", h)
	}
	if row := d.value(`document.querySelector('tr[data-address="` + adr + `"]').innerText`); !strings.Contains(row, "none yet") {
		t.Fatalf("the waiting address's row: %q", row)
	}

	// Create an agent here: the form comes filled with Zamfara and Gusau.
	d.do(chromedp.Navigate(P.GatewayURL+"/ops/#/coverage"), chromedp.WaitVisible(chromedp.CSS(area+" button")), tap(chromedp.CSS(area+" button")))
	d.see("New agent")
	if got := d.value(`[...document.getElementById("agent-states").selectedOptions].map(o => o.value) + "/" +
		[...document.getElementById("agent-lgas").selectedOptions].map(o => o.value)`); got != "Zamfara/Gusau" {
		t.Fatalf("prefilled coverage %q", got)
	}
	phone := fmt.Sprintf("0809 %03d %04d", rand.IntN(1000), rand.IntN(10000))
	d.do(chromedp.SendKeys(chromedp.ID("agent-name"), "Musa Sani"), chromedp.SendKeys(chromedp.ID("agent-phone"), "12345"), tap(chromedp.ID("agent-save")))
	d.seeIn("agent-phone-err", "Nigerian mobile")
	d.do(chromedp.SetValue(chromedp.ID("agent-phone"), phone), tap(chromedp.ID("agent-save")))
	d.seeIn("agent-saved", "Musa Sani created: 1 open task")
	d.seeIn("agents-list", "+234"+strings.ReplaceAll(phone[1:], " ", ""))
	d.shot("12-agents")

	// The queue shows it assigned, and the lender sees ASSIGNED.
	d.do(chromedp.Navigate(P.GatewayURL + "/ops/#/queue?state=Zamfara"))
	d.seeIn("queue-table", "Musa Sani")
	if row := d.value(`document.querySelector('tr[data-address="` + adr + `"]').innerText`); !strings.Contains(row, "assigned") {
		t.Fatalf("the address's row after the agent: %q", row)
	}
	d.shot("10-queue")
	if pager := d.value(`document.getElementById("queue-table").nextElementSibling.innerText`); strings.TrimSpace(pager) != "" {
		t.Fatalf("below the last page: %q", pager)
	}
	// Select it; the page refreshes itself (every 15 s) and shows a new
	// address without losing the selection.
	d.do(tap(chromedp.ID("sel-" + adr)))
	c2 := create(t, live, newCustomer(map[string]any{"addresses": []map[string]any{
		{"streetNumber": "9", "streetName": "Canteen Road", "city": "Gusau", "lga": "Gusau", "state": "Zamfara"}}}))
	d.seeIn("queue-table", "Canteen Road")
	if on := d.value(`String(document.getElementById("sel-` + adr + `").checked) + String(document.getElementById("sel-` + c2.Addresses[0].ID + `").checked)`); on != "truefalse" {
		t.Fatalf("after the refresh, selected (first, new): %s", on)
	}
	// Give the selected one to Musa again from the reassign panel.
	d.do(chromedp.SetValue(chromedp.ID("reassign-agent"), d.value(`[...document.querySelectorAll("#reassign-agent option")].find((o) => o.text.startsWith("Musa Sani")).value`)),
		tap(chromedp.ID("reassign")))
	d.seeIn("reassign-result", "1 reassigned, 0 refused")
	if got := d.value(`document.getElementById("reassign-result").innerText.trim()`); got != "1 reassigned, 0 refused." {
		t.Fatalf("the reassignment's result: %q", got)
	}
	d.fitsPhone("13-queue-phone")
	waitAddress(t, live, c.ID, "ASSIGNED")
	d.do(chromedp.Navigate(P.GatewayURL + "/ops/#/coverage"))
	d.seeIn("coverage-summary", "open live addresses")
	if got := d.value(`document.getElementById("state-zamfara").getAttribute("class")`); strings.Contains(got, "uncovered") {
		t.Fatalf("Zamfara still uncovered: %q", got)
	}
}
