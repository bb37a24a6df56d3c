package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/kycfield/kyc/e2e/harness"
)

// TestAgentAppTaskCards: an agent with three look-alike tasks (one
// customer name, one street) signs in with the phone written the local
// way, by keyboard, on a phone set to London time. The re-visit comes
// first, due 09:00 Lagos time and saying so; each card names its street
// number and LGA; the sticky header never covers the top of a screen; the
// "sent" confirmation stays until dismissed; a reviewer's note on a task
// is shown.
func TestAgentAppTaskCards(t *testing.T) {
	t.Parallel()
	// Bayelsa, where no other test puts an address.
	const lat, lng = 4.9267, 6.2676
	id, ph, code := agentWithCode(t, P, "Tamara Ebi", []string{"Bayelsa"}, []string{"Yenagoa", "Ogbia"})
	org := P.NewOrg(t, "growth")
	_, live := P.NewKey(t, org, "live")
	addrs := map[string]string{} // card label -> address id
	for _, a := range []struct{ number, lga string }{{"12", "Yenagoa"}, {"12", "Ogbia"}, {"14", "Yenagoa"}} {
		c := create(t, live, newCustomer(map[string]any{"addresses": []map[string]any{{"streetNumber": a.number, "streetName": "Adebayo Road",
			"city": "Yenagoa", "lga": a.lga, "state": "Bayelsa"}}}))
		waitAddress(t, live, c.ID, "ASSIGNED")
		addrs["Ngozi Okafor, "+a.number+" Adebayo Road, "+a.lga] = c.Addresses[0].ID
	}
	// The last task had a visit with no access: it is due again at 09:00
	// Lagos time on the next working day and goes first.
	a := &fieldAgent{t: t, id: id, token: signInAgent(t, P, ph, code)}
	revisit := addrs["Ngozi Okafor, 14 Adebayo Road, Yenagoa"]
	at := map[string]any{"latitude": lat, "longitude": lng, "accuracy": 9}
	a.call("POST", "/tasks/"+revisit+"/check-in", at, uuid.NewString())
	if r := a.call("POST", "/tasks/"+revisit+"/complete", map[string]any{"outcome": "NO_ACCESS", "latitude": lat, "longitude": lng, "accuracy": 9,
		"notes": "Gate locked"}, uuid.NewString()); r.Status != http.StatusOK {
		t.Fatalf("no access: %d %s", r.Status, r.Body)
	}
	var c struct{ Code string }
	P.Do(t, harness.Request{Method: "POST", URL: P.URLs["verification"] + "/admin/v1/agents/" + id + "/code", Key: harness.AdminToken}).Decode(t, &c)

	p := newPhoneApp(t, lat, lng)
	// The agent's phone is set to London: due times are still Lagos time.
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/London"})
		return err
	}))
	p.do(chromedp.Navigate(P.GatewayURL+"/agent/"), chromedp.WaitVisible(chromedp.ID("phone")),
		chromedp.SendKeys(chromedp.ID("phone"), localPhone(ph)), chromedp.SendKeys(chromedp.ID("code"), c.Code+"\r"))
	p.see("Today's tasks")
	p.headerCoversNothing()

	labels := p.cardLabels()
	want := []string{"Ngozi Okafor, 14 Adebayo Road, Yenagoa", "Ngozi Okafor, 12 Adebayo Road, Yenagoa", "Ngozi Okafor, 12 Adebayo Road, Ogbia"}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Fatalf("cards %q; want the re-visit first, then the others in the order they came: %q", labels, want)
	}
	first := p.text(`#main section.card`)
	for _, s := range []string{"Re-visit", "14 Adebayo Road", "LGA: Yenagoa", "09:00 WAT", "1 earlier visit(s)"} {
		if !strings.Contains(first, s) {
			t.Errorf("the re-visit's card lacks %q: %s", s, first)
		}
	}
	if strings.Contains(p.text(`#main section.card:nth-of-type(3)`), "Re-visit") {
		t.Errorf("a first visit is marked as a re-visit: %s", p.screen())
	}
	p.shot("12-task-cards")

	// By keyboard, from the bottom of the list: the task opens at its top,
	// below the header, and Back returns to the list's top.
	p.do(chromedp.Focus(chromedp.CSS(`#main > button.secondary:last-of-type`)), chromedp.Focus(chromedp.CSS(`section[aria-label="`+want[2]+`"] button`)),
		chromedp.KeyEvent("\r"))
	p.see("Start visit")
	p.headerCoversNothing()
	p.do(chromedp.Focus(chromedp.CSS(`#main > button.secondary`)), chromedp.KeyEvent("\r"))
	p.see("Today's tasks")
	p.headerCoversNothing()

	// A no-access visit of the Ogbia task, by keyboard, through to Submit.
	p.do(chromedp.Focus(chromedp.CSS(`section[aria-label="`+want[2]+`"] button`)), chromedp.KeyEvent("\r"))
	p.checkIn(false)
	p.do(tap(chromedp.ID("next")), chromedp.WaitVisible(chromedp.ID("resident-name")),
		tap(chromedp.ID("next")), tap(chromedp.ID("outcome-NO_ACCESS")), chromedp.WaitVisible(chromedp.ID("notes")),
		chromedp.SendKeys(chromedp.ID("notes"), "Nobody home"), tap(chromedp.ID("next"), chromedp.NodeEnabled))
	p.see("Nobody home")
	p.do(tap(chromedp.ID("next"), chromedp.NodeEnabled))
	p.see("All changes sent")
	sent := "Sent: No access for " + want[2] + "."
	p.see(sent)
	p.headerCoversNothing()
	p.shot("13-sent-kept")
	// It stays: through a refresh of the list and a reload of the app.
	p.do(tap(chromedp.CSS(`#main > button.secondary:nth-last-of-type(2)`)))
	p.see("Today's tasks")
	p.do(chromedp.Reload())
	p.see("Today's tasks")
	p.see(sent)
	// Dismissed by keyboard, it is gone for good. The list may be drawn
	// again while it syncs after the reload (a button found a moment ago
	// is then gone): focus the current one and press Enter until the
	// confirmation has left the screen.
	for i := 0; ; i++ {
		focused, _ := chromedp.Run(p.ctx, chromedp.Evaluate[bool](
			`(() => { const b = document.querySelector("#main .sent button"); if (!b) return false; b.focus(); return document.activeElement === b; })()`))
		if focused {
			p.do(chromedp.KeyEvent("\r"))
		}
		if gone, _ := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`document.querySelector("#main .sent") === null`)); gone {
			break
		}
		if i == 100 {
			t.Fatalf("Enter on Dismiss left the confirmation: %s", p.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.do(chromedp.Reload())
	p.see("Today's tasks")
	if strings.Contains(p.screen(), "Sent:") {
		t.Fatalf("the dismissed confirmation came back: %s", p.screen())
	}

	// A reviewer's note on a task (the review step is yet to come: the
	// note is put on the phone's copy of the list, which the app shows
	// with no network).
	// The page is first reloaded offline: a list fetched by the page
	// before (its answer still on the way on a loaded machine) would
	// otherwise be stored over the edited copy, note and all.
	p.do(chromedp.PollFunction[chromedp.Void](`() => navigator.serviceWorker.controller !== null`))
	p.online(false)
	p.do(chromedp.Reload())
	p.see("Offline: the list as it was at")
	p.do(chromedp.Evaluate[chromedp.Void](`(() => { const c = JSON.parse(localStorage.getItem("kyc.tasks"));
		c.tasks[0].reviewNote = "Photograph the house number, please."; localStorage.setItem("kyc.tasks", JSON.stringify(c)); })()`),
		chromedp.Reload())
	p.see("Offline: the list as it was at")
	p.see("Reviewer's note: Photograph the house number, please.")
	p.headerCoversNothing()
	p.shot("14-review-note")
	p.online(true)
}

// cardLabels are the task cards' names, top to bottom.
func (p *phoneApp) cardLabels() []string {
	p.t.Helper()
	l, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#main section.card")].map((s) => s.getAttribute("aria-label"))`))
	if err != nil {
		p.t.Fatal(err)
	}
	return l
}

// text is what the first element sel finds shows.
func (p *phoneApp) text(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.querySelector(`+"`"+sel+"`"+`)?.innerText ?? ""`))
	if err != nil {
		p.t.Fatal(err)
	}
	return s
}

// headerCoversNothing: the screen's first line and its heading are in view,
// wholly below the sticky header.
func (p *phoneApp) headerCoversNothing() {
	p.t.Helper()
	// Wait for the screen to settle (no control moving) before measuring.
	p.do(chromedp.Evaluate[chromedp.Void](`delete window.__settle`), chromedp.PollFunction[chromedp.Void](settledJS))
	bad, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`(() => {
		const bottom = document.querySelector("header").getBoundingClientRect().bottom;
		return [document.querySelector("#main").firstElementChild, document.querySelector("#main h2")]
			.filter((e) => e && (e.getBoundingClientRect().top < bottom || e.getBoundingClientRect().top > innerHeight))
			.map((e) => e.tagName + " '" + e.textContent.slice(0, 40) + "' at " + Math.round(e.getBoundingClientRect().top) + " (header ends at " + Math.round(bottom) + ")").join("; ");
	})()`))
	if err != nil || bad != "" {
		p.t.Fatalf("the sticky header covers the top of the screen: %s %v\nscreen: %s", bad, err, p.screen())
	}
}
