package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Teams in the dashboard (issue 29, item 4): members invited by a link
// the inviting owner copies, roles the page respects, and the audit log.

// TestDashboardTeamPage: an owner invites a viewer and a developer from
// the Team page with the keyboard and copies each link; each opens it in
// a browser of their own and joins. The viewer is offered no key
// creation, no invite and no writes, and the API refuses the key the
// page hid (403); the owner finds that refused key.create in the audit
// log, filtered to refused attempts.
func TestDashboardTeamPage(t *testing.T) {
	t.Parallel()
	owner := newDashPage(t)
	ownerEmail := owner.signUp(false)
	owner.grantClipboard()
	// Something for the viewer to read: a customer and a webhook endpoint,
	// made by the owner through the page's session.
	var made struct{ Data struct{ ID string } }
	if err := json.Unmarshal([]byte(owner.api("POST", "/api/v1/customers", newCustomer(nil))), &made); err != nil || made.Data.ID == "" {
		t.Fatalf("the owner's customer: %v", err)
	}
	customerID := made.Data.ID
	recv := newHookReceiver(t, nil)
	if err := json.Unmarshal([]byte(owner.api("POST", "/api/v1/webhooks", map[string]any{"url": recv.URL + "/kyc"})), &made); err != nil || made.Data.ID == "" {
		t.Fatalf("the owner's webhook: %v", err)
	}
	hookID := made.Data.ID
	owner.do(tap(chromedp.CSS(`nav a[href="#/team"]`)))
	owner.seeIn("members", ownerEmail)
	owner.seeIn("members", "Owner")
	owner.seeIn("whoami", "Owner")

	suffix := rand.Int64()
	viewerEmail := fmt.Sprintf("viewer%d@lender.ng", suffix)
	developerEmail := fmt.Sprintf("developer%d@lender.ng", suffix)
	viewerLink := owner.invite(viewerEmail, 0)
	owner.shot("19-invite-link")
	developerLink := owner.invite(developerEmail, 1) // one step down the list: Developer
	for _, l := range []string{viewerLink, developerLink} {
		u, err := url.Parse(l)
		if err != nil || u.Path != "/dashboard/" || !strings.HasPrefix(u.Fragment, "invite=") || u.RawQuery != "" {
			t.Fatalf("the invitation link %q must carry its token in the fragment only", l)
		}
	}
	owner.seeIn("invitations", viewerEmail)
	owner.seeIn("invitations", developerEmail)

	// A third invitation, revoked: its row leaves the pending list.
	revoked := fmt.Sprintf("revoked%d@lender.ng", suffix)
	owner.invite(revoked, 0)
	owner.seeIn("invitations", revoked)
	owner.do(tap(chromedp.CSS(`button[aria-label="Revoke the invitation of ` + revoked + `"]`)))
	owner.do(chromedp.PollFunction[chromedp.Void](`(s) => !document.getElementById("invitations").innerText.includes(s)`,
		chromedp.WithPollingArgs(revoked), chromedp.WithPollingTimeout(time.Minute)))

	// The viewer opens the link in a browser of their own: the invitation
	// in words, the API's complaint beside the field, then in.
	viewer := newDashPage(t)
	viewer.accept(viewerLink, viewerEmail, "viewer", "Ngozi Viewer", true)
	viewer.seeIn("whoami", "Viewer")
	// The barrier: the overview has drawn its figures and the header its
	// pages, Team among them; only then do the absences mean anything.
	viewer.see("Overview · Sandbox")
	viewer.seeIn("stat-total-value", "1") // the owner's customer
	viewer.seeIn("nav", "Team")
	for _, hidden := range []string{"keys", "new-customer", "import", "audit"} {
		if viewer.value(fmt.Sprintf(`String(!!document.querySelector('nav a[href="#/%s"]'))`, hidden)) != "false" {
			t.Errorf("the viewer is offered #/%s", hidden)
		}
	}
	viewer.shot("21-viewer-dashboard")
	// Typing the keys page's address lands on the overview, with no form.
	viewer.do(chromedp.Navigate(P.GatewayURL + "/dashboard/#/keys"))
	viewer.do(chromedp.PollFunction[chromedp.Void](`() => location.hash === "#/overview" && document.body.innerText.includes("Overview · Sandbox")`,
		chromedp.WithPollingTimeout(time.Minute)))
	viewer.absent("create-key")
	// The Team page reads the members, with no invite and no actions.
	viewer.do(tap(chromedp.CSS(`nav a[href="#/team"]`)))
	viewer.seeIn("members", viewerEmail)
	viewer.seeIn("team-readonly", "ask one of them")
	viewer.absent("invite-send")
	if n := viewer.value(`String(document.querySelectorAll("#members button").length)`); n != "0" {
		t.Errorf("the viewer is offered %s buttons on the members", n)
	}
	// Webhooks: the endpoints, no form; an endpoint's page: its delivery
	// log, and none of the buttons that change it or show its secret.
	viewer.do(tap(chromedp.CSS(`nav a[href="#/webhooks"]`)))
	viewer.see(recv.URL + "/kyc")
	viewer.absent("add-endpoint")
	viewer.do(tap(chromedp.CSS(`a[href="#/webhooks/` + hookID + `"]`)))
	viewer.see("Delivery log")
	viewer.seeIn("endpoint-state", "Enabled")
	for _, id := range []string{"send-test", "reveal-secret", "rotate-secret", "edit-endpoint", "toggle-endpoint", "delete-endpoint"} {
		viewer.absent(id)
	}
	// A customer's page: the facts and documents, no attach form. (The
	// verification service learns of a new customer through an event: the
	// page is opened again until it has.)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		viewer.do(chromedp.Navigate(P.GatewayURL + "/dashboard/#/customers/" + customerID))
		viewer.do(chromedp.PollFunction[chromedp.Void](`() => /Documents|Customer not found/.test(document.body.innerText)`, chromedp.WithPollingTimeout(time.Minute)))
		if strings.Contains(viewer.value(`document.body.innerText`), "No documents.") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the viewer never saw the customer: %s", viewer.screen())
		}
	}
	viewer.absent("attach-form")
	viewer.do(chromedp.WaitVisible(chromedp.ID("download-report")))
	// The plan: the plans, no change.
	viewer.do(tap(chromedp.CSS(`nav a[href="#/plan"]`)))
	viewer.seeIn("plan-readonly", "changes the plan")
	if n := viewer.value(`String(document.querySelectorAll('button[id^="choose-"]').length)`); n != "0" {
		t.Errorf("the viewer is offered %s plan changes", n)
	}
	// What the page hid, the server refuses: the page's own session and
	// CSRF token asking for a key directly.
	if status, body := viewer.call("POST", "/dashboard/v1/keys", map[string]any{"name": "sneaky", "environment": "test",
		"scopes": []string{"kyc:read"}}); status != 403 || !strings.Contains(body, "ROLE_REQUIRED") {
		t.Fatalf("a viewer creating a key: %d %s", status, body)
	}
	// The public API too: a viewer's session has the read scope only.
	if status, body := viewer.call("POST", "/api/v1/customers", newCustomer(nil)); status != 403 {
		t.Errorf("a viewer creating a customer: %d %s", status, body)
	}

	// The developer: keys and webhooks, but no plan change and no invite.
	developer := newDashPage(t)
	developer.accept(developerLink, developerEmail, "developer", "Tunde Developer", false)
	developer.seeIn("whoami", "Developer")
	developer.see("Your keys")
	developer.do(chromedp.WaitVisible(chromedp.ID("create-key")))
	developer.do(tap(chromedp.CSS(`nav a[href="#/team"]`)))
	developer.seeIn("members", developerEmail)
	developer.seeIn("team-readonly", "ask one of them")
	developer.absent("invite-send")
	developer.do(tap(chromedp.CSS(`nav a[href="#/plan"]`)))
	developer.seeIn("plan-readonly", "changes the plan")
	if n := developer.value(`String(document.querySelectorAll('button[id^="choose-"]').length)`); n != "0" {
		t.Errorf("the developer is offered %s plan changes", n)
	}
	if developer.value(`String(!!document.querySelector('nav a[href="#/audit"]'))`) != "false" {
		t.Error("the developer is offered the audit log")
	}

	// The owner's Team page: three members with their roles, at desktop
	// width and on a phone.
	owner.do(chromedp.Reload())
	owner.seeIn("members", viewerEmail)
	owner.seeIn("members", developerEmail)
	owner.seeIn("members", "Ngozi Viewer")
	owner.seeIn("invitations", "No pending invitations")
	owner.shot("17-team-owner")
	owner.fitsPhone("18-team-360px")
	if bad := owner.value(unlabelledJS); bad != "" {
		t.Errorf("the Team page has controls without a name:\n%s", bad)
	}

	// The audit log, filtered to refused attempts, shows the viewer's key.
	// It is filled from events: the owner presses Show until it arrives.
	owner.do(tap(chromedp.CSS(`nav a[href="#/audit"]`)), chromedp.WaitVisible(chromedp.ID("audit-outcome")),
		chromedp.SetValue(chromedp.ID("audit-outcome"), "refused"))
	row := `document.querySelector('#audit-rows tr[data-action="key.create"][data-outcome="refused"]')`
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(300 * time.Millisecond) {
		owner.do(tap(chromedp.ID("audit-apply")))
		owner.do(chromedp.PollFunction[chromedp.Void](`() => !document.getElementById("audit-apply").disabled`, chromedp.WithPollingTimeout(time.Minute)))
		if owner.value(`String(!!`+row+`)`) == "true" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the viewer's refused key.create never showed in the audit log: %s", owner.screen())
		}
	}
	got := owner.value(row + `.innerText`)
	for _, want := range []string{viewerEmail, "key.create", "REFUSED"} {
		if !strings.Contains(strings.ToUpper(got), strings.ToUpper(want)) {
			t.Errorf("the audit row %q lacks %q", got, want)
		}
	}
	if n := owner.value(`String(document.querySelectorAll('#audit-rows tr[data-outcome]:not([data-outcome="refused"])').length)`); n != "0" {
		t.Errorf("filtered to refused, the log shows %s other entries", n)
	}
	owner.shot("22-audit-refused")
	// Filtered by who: the viewer's entries alone.
	owner.do(chromedp.SetValue(chromedp.ID("audit-outcome"), ""),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.getElementById("audit-actor");
			s.value = [...s.options].find((o) => o.text.includes(%q)).value; })()`, viewerEmail)), tap(chromedp.ID("audit-apply")))
	owner.do(chromedp.PollFunction[chromedp.Void](`() => !document.getElementById("audit-apply").disabled`, chromedp.WithPollingTimeout(time.Minute)))
	// Both of the viewer's refusals (the key and the customer) and whatever
	// else they did, none of the owner's invitations.
	if got := owner.value(fmt.Sprintf(`(() => { const rows = [...document.querySelectorAll("#audit-rows tr[data-action]")];
		return rows.length + " " + rows.every((r) => r.innerText.includes(%q)); })()`, viewerEmail)); !viewerRowsOnly(got) {
		t.Errorf("filtered by the viewer, the log shows (rows, all theirs): %s\n%s", got, owner.screen())
	}

	// The viewer becomes a developer from their row; then the developer
	// is removed, after a confirmation: their row leaves.
	owner.do(tap(chromedp.CSS(`nav a[href="#/team"]`)))
	owner.seeIn("members", developerEmail)
	member := `document.querySelector('#members tr[data-email="` + viewerEmail + `"]')`
	owner.do(chromedp.SetValue(chromedp.CSS(`#members tr[data-email="`+viewerEmail+`"] select`), "developer"),
		tap(chromedp.CSS(`button[aria-label="Change the role of Ngozi Viewer"]`)))
	owner.do(chromedp.PollFunction[chromedp.Void](`() => `+member+`.querySelector(".role").innerText === "Developer"`, chromedp.WithPollingTimeout(time.Minute)))
	owner.do(tap(chromedp.CSS(`button[aria-label="Remove Tunde Developer"]`)), chromedp.WaitVisible(chromedp.ID("confirm-remove")))
	owner.see("Their sessions end at once")
	owner.do(tap(chromedp.ID("confirm-remove")))
	owner.do(chromedp.PollFunction[chromedp.Void](`(s) => !document.getElementById("members").innerText.includes(s)`,
		chromedp.WithPollingArgs(developerEmail), chromedp.WithPollingTimeout(time.Minute)))
}

// invite sends an invitation from the Team page with the keyboard alone
// (down steps down the role list from Viewer) and returns the link the
// Copy button copied, or the link shown when the clipboard is refused.
func (d *dashPage) invite(email string, down int) string {
	d.t.Helper()
	d.do(chromedp.Focus(chromedp.ID("invite-email")), chromedp.KeyEvent(email), chromedp.KeyEvent("\t"))
	if d.value(`document.activeElement.id`) != "invite-role" {
		d.t.Fatalf("Tab from the email reached %q, not the role", d.value(`document.activeElement.outerHTML`))
	}
	for range down {
		d.do(chromedp.KeyEvent(kb.ArrowDown))
	}
	d.do(chromedp.KeyEvent("\t"))
	if d.value(`document.activeElement.id`) != "invite-send" {
		d.t.Fatalf("Tab from the role reached %q, not Invite", d.value(`document.activeElement.outerHTML`))
	}
	d.do(chromedp.KeyEvent("\r"))
	d.seeIn("invite-out", email)
	d.do(chromedp.WaitVisible(chromedp.ID("invite-link")))
	if d.value(`document.activeElement.id`) != "invite-link" {
		d.t.Fatalf("after inviting, the focus is on %q, not the link", d.value(`document.activeElement.outerHTML`))
	}
	shown := d.value(`document.getElementById("invite-link").value`)
	// Tab to Copy, Enter: the link goes to the clipboard.
	d.do(chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"))
	d.do(chromedp.PollFunction[chromedp.Void](`() => document.getElementById("invite-link-status").innerText !== ""`, chromedp.WithPollingTimeout(time.Minute)))
	if d.value(`document.getElementById("invite-link-status").innerText`) == "Copied" {
		copied, err := chromedp.Run(d.ctx, chromedp.Evaluate[string](`navigator.clipboard.readText().catch(() => "")`, chromedp.EvalAwaitPromise))
		if err == nil && copied != "" && copied != shown {
			d.t.Fatalf("copied %q, shown %q", copied, shown)
		}
	}
	return shown
}

// grantClipboard lets the page write and read the clipboard, as a person
// who allowed it would.
func (d *dashPage) grantClipboard() {
	d.t.Helper()
	d.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
				Permission: &cdpbrowser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true},
				Setting:    cdpbrowser.PermissionSettingGranted, Origin: P.GatewayURL}); err != nil {
				return err
			}
		}
		return nil
	}))
}

// accept opens an invitation link, checks what it says, sees a short
// password refused beside its field, then joins.
func (d *dashPage) accept(link, email, role, name string, shoot bool) {
	d.t.Helper()
	// The link names the gateway as configured (PUBLIC_URL); the harness's
	// gateway listens elsewhere, so the fragment is opened there.
	_, fragment, ok := strings.Cut(link, "/dashboard/#")
	if !ok {
		d.t.Fatalf("invitation link %q", link)
	}
	d.do(chromedp.Navigate(P.GatewayURL + "/dashboard/#" + fragment))
	d.see("Join Lagos Microfinance Ltd")
	d.seeIn("invite-email", email)
	d.seeIn("invite-role", role)
	d.do(chromedp.SendKeys(chromedp.ID("invite-name"), name), chromedp.SendKeys(chromedp.ID("invite-password"), "short"),
		tap(chromedp.ID("accept-invite")))
	d.seeIn("invite-password-err", "at least 10 characters")
	if shoot {
		d.shot("20-accept-invite")
	}
	if !strings.HasPrefix(d.value(`location.hash`), "#invite=") {
		d.t.Fatal("the token left the address before it was used")
	}
	d.do(chromedp.SetValue(chromedp.ID("invite-password"), "correct horse battery "+role), tap(chromedp.ID("accept-invite")))
	d.do(chromedp.PollFunction[chromedp.Void](`() => !!document.getElementById("whoami")`, chromedp.WithPollingTimeout(time.Minute)))
	if h := d.value(`location.href`); strings.Contains(h, "invite") {
		d.t.Fatalf("the token stays in the address after use: %q", h)
	}
}

// absent checks that no element has id: call it after a barrier, once
// the page has drawn what would have held it.
func (d *dashPage) absent(id string) {
	d.t.Helper()
	if d.value(fmt.Sprintf(`String(!!document.getElementById(%q))`, id)) != "false" {
		d.t.Errorf("#%s is offered: %s", id, d.screen())
	}
}

// call sends a request from the page with its session and CSRF token and
// returns the status and the body, refusals included.
func (d *dashPage) call(method, path string, body any) (int, string) {
	d.t.Helper()
	b, _ := json.Marshal(body)
	v, err := chromedp.Run(d.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(async () => {
		const me = await (await fetch("/dashboard/v1/me")).json();
		const r = await fetch(%q, {method: %q, body: %q, headers: {"Content-Type": "application/json", "X-CSRF-Token": me.data.csrfToken, "KYC-Environment": "test"}});
		return r.status + " " + await r.text();
	})()`, path, method, string(b)), chromedp.EvalAwaitPromise))
	if err != nil {
		d.t.Fatalf("fetch %s: %v", path, err)
	}
	var status int
	fmt.Sscanf(v, "%d", &status)
	return status, v
}

// viewerRowsOnly reads "<rows> <all the viewer's>": at least their two
// refusals, and nobody else's entry.
func viewerRowsOnly(got string) bool {
	var n int
	var all bool
	_, err := fmt.Sscanf(got, "%d %t", &n, &all)
	return err == nil && n >= 2 && all
}
