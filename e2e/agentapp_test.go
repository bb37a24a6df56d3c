package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/kycfield/kyc/e2e/harness"
)

// The field agent app (gateway /agent/) driven in Debian's chromium, as
// an agent's phone would use it, against the whole platform.

// phoneApp is one agent's phone: its own chromium with an empty profile,
// phone-sized, touch, with a GPS the test moves.
type phoneApp struct {
	*chromium
	submitted time.Time // when the agent tapped Submit
}

func newPhoneApp(t *testing.T, lat, lng float64) *phoneApp {
	t.Helper()
	p := &phoneApp{chromium: newChromium(t, "agent-app")}
	origin := strings.TrimSuffix(P.GatewayURL, "/")
	p.do(chromedp.EmulateViewport(360, 800, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
				Permission: &cdpbrowser.PermissionDescriptor{Name: "geolocation"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: origin})
			return err
		}))
	p.at(lat, lng, 9)
	// A phone in Nigeria shows Lagos time.
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Africa/Lagos"})
		return err
	}))
	return p
}

// at is where the phone's GPS says it is.
func (p *phoneApp) at(lat, lng, accuracy float64) {
	p.t.Helper()
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetGeolocationOverride, emulation.SetGeolocationOverrideParams{Latitude: &lat, Longitude: &lng, Accuracy: &accuracy})
		return err
	}))
}

// online switches the phone's network on or off (the page, its service
// worker and navigator.onLine).
func (p *phoneApp) online(on bool) {
	p.t.Helper()
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		var rules []*network.Conditions
		if !on {
			rules = []*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}}
		}
		sw := !on
		if _, err := cdp.Call(ctx, t, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			EmulateOfflineServiceWorker: &sw, MatchedNetworkConditions: rules}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: !on, DownloadThroughput: -1, UploadThroughput: -1})
		return err
	}))
}

// fieldVisit is a live customer assigned to a new agent covering state,
// with the agent's one-time code still unused (the app signs in with it).
type fieldVisit struct {
	key, customerID, addressID, phone, code string
}

func newFieldVisit(t *testing.T, state, lga, city string) fieldVisit {
	t.Helper()
	_, ph, code := agentWithCode(t, P, "Funke Adeyemi", []string{state}, []string{lga})
	org := P.NewOrg(t, "growth")
	_, live := P.NewKey(t, org, "live")
	c := create(t, live, newCustomer(map[string]any{"addresses": []map[string]any{{"streetNumber": "12", "streetName": "Adebayo Road",
		"city": city, "lga": lga, "state": state, "landmark": "Opposite the mosque", "notes": "Green gate, ask for Mama Ngozi"}}}))
	waitAddress(t, live, c.ID, "ASSIGNED")
	return fieldVisit{key: live, customerID: c.ID, addressID: c.Addresses[0].ID, phone: ph, code: code}
}

// photoFiles writes two JPEGs: the first with EXIF GPS at exif (when
// given), the second without GPS, as Android browsers hand them over.
func photoFiles(t *testing.T, exif *[2]float64) [2]string {
	dir := t.TempDir()
	out := [2]string{filepath.Join(dir, "front.jpg"), filepath.Join(dir, "street.jpg")}
	for i, at := range []*[2]float64{exif, nil} {
		if err := os.WriteFile(out[i], testJPEG(at), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// signIn opens the app, signs in and opens the one task.
func (p *phoneApp) signIn(v fieldVisit, shoot bool) {
	p.t.Helper()
	p.do(chromedp.Navigate(P.GatewayURL+"/agent/"), chromedp.WaitVisible(chromedp.ID("phone")))
	// What a phone downloads the first time (headers included; reported in
	// BENCHMARKS.md, not asserted).
	if n, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`[...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")]
		.filter((e) => !e.name.includes("/agent/v1/")).reduce((n, e) => n + e.transferSize, 0)`)); err == nil {
		p.t.Logf("app shell first load: %.0f bytes transferred", n)
	}
	p.do(chromedp.SendKeys(chromedp.ID("phone"), v.phone), chromedp.SendKeys(chromedp.ID("code"), v.code))
	if shoot {
		p.shot("01-sign-in")
	}
	p.do(tap(chromedp.ID("sign-in")))
	p.see("Today's tasks")
	p.see("Ngozi Okafor")
	p.see("12 Adebayo Road")
	if shoot {
		p.shot("02-tasks")
	}
	p.do(tap(chromedp.CSS(`section[aria-label^="Ngozi Okafor, 12 Adebayo Road"] button`)))
	p.see("Green gate, ask for Mama Ngozi")
	p.see("Opposite the mosque")
	if shoot {
		p.shot("03-task")
	}
}

// checkIn starts the visit and checks in where the phone is.
func (p *phoneApp) checkIn(shoot bool) {
	p.t.Helper()
	p.do(tap(chromedp.ID("start")))
	p.see("Good position (±9 m)")
	if shoot {
		p.shot("04-check-in")
	}
	p.do(tap(chromedp.ID("check-in"), chromedp.NodeEnabled))
	p.see("Photos")
}

// photosAndOutcome takes two photos, notes who was met and submits VERIFIED.
func (p *phoneApp) photosAndOutcome(files [2]string, shoot bool) {
	p.t.Helper()
	for i, tag := range []string{"building_front", "street_view"} {
		p.do(chromedp.SetValue(chromedp.ID("tag"), tag), chromedp.SetUploadFiles(chromedp.ID("photo"), []string{files[i]}))
		p.see(fmt.Sprintf("%d photo(s) taken", i+1))
	}
	if shoot {
		p.shot("05-photos")
	}
	p.do(tap(chromedp.ID("next")), chromedp.WaitVisible(chromedp.ID("resident-name")),
		chromedp.SendKeys(chromedp.ID("resident-name"), "Chidi Okafor"), chromedp.SendKeys(chromedp.ID("relationship"), "Brother"),
		chromedp.SendKeys(chromedp.ID("building-type"), "Bungalow"))
	if shoot {
		p.shot("06-interview")
	}
	p.do(tap(chromedp.ID("next")), tap(chromedp.ID("outcome-VERIFIED")), chromedp.WaitVisible(chromedp.ID("verified-address")))
	if shoot {
		p.shot("07-outcome")
	}
	p.do(tap(chromedp.ID("next"), chromedp.NodeEnabled))
	p.see("Building front, Street view")
	if shoot {
		p.shot("08-review")
	}
	p.submitted = time.Now()
	p.do(tap(chromedp.ID("next"), chromedp.NodeEnabled))
}

// lenderSeesVerified checks the lender's status endpoint: VERIFIED with
// exactly the two photos, each one retrievable.
func lenderSeesVerified(t *testing.T, v fieldVisit) string {
	t.Helper()
	s := waitOverall(t, v.key, v.customerID, "VERIFIED")
	d := s.Addresses[0].VerificationData
	if d == nil || d.PhotoCount != 2 || len(d.VerificationPhotos) != 2 || d.VerifiedAddress == "" {
		t.Fatalf("verification data: %s", mustJSON(s))
	}
	tags := map[string]bool{}
	for _, ph := range d.VerificationPhotos {
		u, err := url.Parse(ph.URL)
		if err != nil {
			t.Fatalf("photo URL %q", ph.URL)
		}
		if img := P.API(t, "GET", u.Path, v.key, nil); img.Status != http.StatusOK || img.Header.Get("Content-Type") != "image/jpeg" {
			t.Fatalf("photo %s: %d", u.Path, img.Status)
		}
		tags[ph.Tag] = true
	}
	if !tags["building_front"] || !tags["street_view"] {
		t.Fatalf("photo tags: %+v", d.VerificationPhotos)
	}
	r, _ := status(t, v.key, v.customerID)
	return string(r.Body)
}

func TestAgentAppVerifiedVisit(t *testing.T) {
	t.Parallel()
	// Ekiti, where no other test puts a live address.
	const lat, lng = 7.6233, 5.2209
	v := newFieldVisit(t, "Ekiti", "Ado Ekiti", "Ado-Ekiti")
	p := newPhoneApp(t, lat, lng)
	p.signIn(v, true)
	// Installable: Chrome finds a manifest, icons and a service worker it accepts.
	p.do(chromedp.PollFunction[chromedp.Void](`() => navigator.serviceWorker.controller !== null`, chromedp.WithPollingTimeout(time.Minute)))
	inst, err := chromedp.Call(p.ctx, page.GetInstallabilityErrors, cdp.Empty{})
	if err != nil || len(inst.InstallabilityErrors) > 0 {
		t.Errorf("not installable: %v %s", err, mustJSON(inst))
	}
	p.checkIn(true)
	// The first photo's own EXIF GPS is 5 km away: the server must flag it.
	p.photosAndOutcome(photoFiles(t, &[2]float64{lat + 0.045, lng}), true)
	waitOverall(t, v.key, v.customerID, "VERIFIED")
	t.Logf("submit tapped online to the lender's status showing VERIFIED: %s", time.Since(p.submitted).Round(time.Millisecond))
	p.see("All changes sent")
	p.see("No tasks")
	p.see("Sent: Verified for Ngozi Okafor, 12 Adebayo Road, Ado Ekiti.")
	p.shot("09-sent")
	raw := lenderSeesVerified(t, v)
	if !strings.Contains(raw, "PHOTO_GPS_FAR_FROM_COMPLETION") || !strings.Contains(raw, "was taken 5.0 km from where the visit was completed") {
		t.Errorf("a photo taken 5 km away was not flagged with its distance: %s", raw)
	}
	// The app sampled the phone's position during the visit and sent the
	// trail with the outcome: operations read it.
	ev := P.Do(t, harness.Request{Method: "GET", URL: P.URLs["verification"] + "/admin/v1/tasks/" + v.addressID + "/evidence", Key: harness.AdminToken})
	var e struct {
		Visits []struct {
			Samples []struct{ Latitude, Longitude float64 }
		}
	}
	ev.Decode(t, &e)
	if len(e.Visits) != 1 || len(e.Visits[0].Samples) == 0 || e.Visits[0].Samples[0].Latitude != lat || e.Visits[0].Samples[0].Longitude != lng {
		t.Errorf("the visit's trail: %s", ev.Body)
	}
	// The photo without EXIF GPS carries the phone's own position.
	if strings.Contains(raw, "PHOTO_WITHOUT_GPS") {
		t.Errorf("the app did not record the phone's position with a photo: %s", raw)
	}
	for _, want := range []string{`"relationship":"Brother"`, `"name":"Chidi Okafor"`} {
		if !strings.Contains(raw, want) {
			t.Errorf("status lacks %s: %s", want, raw)
		}
	}
}

func TestAgentAppOfflineQueue(t *testing.T) {
	t.Parallel()
	// Osun, where no other test puts a live address.
	const lat, lng = 7.7827, 4.5418
	v := newFieldVisit(t, "Osun", "Osogbo", "Osogbo")
	p := newPhoneApp(t, lat, lng)
	p.signIn(v, false)
	p.checkIn(false)
	p.see("All changes sent")
	waitAddress(t, v.key, v.customerID, "IN_PROGRESS")
	// The app shell must be on the phone before the signal goes.
	p.do(chromedp.PollFunction[chromedp.Void](`() => navigator.serviceWorker.controller !== null`, chromedp.WithPollingTimeout(time.Minute)))

	p.online(false)
	p.photosAndOutcome(photoFiles(t, nil), false)
	p.see("3 waiting to sync")
	p.see("Done: Verified")
	p.shot("10-offline-waiting")
	// Closing the app loses nothing: reload it with no network.
	p.do(chromedp.Reload())
	p.see("3 waiting to sync")
	p.see("Done: Verified")
	p.see("Saved: Verified for Ngozi Okafor, 12 Adebayo Road, Osogbo. It will be sent when there is a network.")
	if _, s := status(t, v.key, v.customerID); s.OverallStatus == "VERIFIED" {
		t.Fatal("verified while the phone was offline")
	}

	p.online(true)
	p.see("All changes sent")
	p.see("No tasks")
	p.see("Sent: Verified for Ngozi Okafor, 12 Adebayo Road, Osogbo.")
	lenderSeesVerified(t, v)
}

func TestAgentAppNoAccessRevisit(t *testing.T) {
	t.Parallel()
	// Ondo, where no other test puts a live address.
	const lat, lng = 7.2571, 5.2058
	v := newFieldVisit(t, "Ondo", "Akure South", "Akure")
	p := newPhoneApp(t, lat, lng)
	p.signIn(v, false)
	// Under a roof the fix is poor: the app waits (up to 30 s) for better
	// than 50 m before it lets the agent check in.
	p.at(lat, lng, 120)
	p.do(tap(chromedp.ID("start")))
	p.see("Accuracy: ±120 m")
	if off, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`document.getElementById("check-in").disabled`)); err != nil || !off {
		t.Fatalf("check-in offered at ±120 m before the wait ended (%v)", err)
	}
	p.at(lat, lng, 9)
	p.see("Good position (±9 m)")
	p.do(tap(chromedp.ID("check-in"), chromedp.NodeEnabled))
	p.see("Photos")
	p.do(tap(chromedp.ID("next")), chromedp.WaitVisible(chromedp.ID("resident-name")),
		tap(chromedp.ID("next")), tap(chromedp.ID("outcome-NO_ACCESS")), chromedp.WaitVisible(chromedp.ID("notes")),
		chromedp.SendKeys(chromedp.ID("notes"), "Gate locked, nobody answered"), tap(chromedp.ID("next"), chromedp.NodeEnabled))
	p.see("Gate locked, nobody answered")
	p.do(tap(chromedp.ID("next"), chromedp.NodeEnabled))
	p.see("All changes sent")
	// The task comes back for the next working day, first on the list,
	// marked as a re-visit, due at 09:00 Lagos time.
	p.see("Re-visit")
	p.see("09:00 WAT")
	p.see("1 earlier visit(s)")
	p.shot("11-revisit")
	if _, s := status(t, v.key, v.customerID); s.Addresses[0].Status != "ASSIGNED" || s.OverallStatus == "VERIFIED" {
		t.Fatalf("after no access: %s", mustJSON(s))
	}
}

// TestAgentAppUnreliableNetwork puts two of a phone network's lies between
// the app and the platform: a captive Wi-Fi page answering the check-in
// with 200 and HTML (the platform never sees it), and the first photo's
// answer lost after the platform stored it. The app must resend both
// with the same Idempotency-Key until the platform itself answers, and the
// platform must end with one check-in, two photos and VERIFIED.
func TestAgentAppUnreliableNetwork(t *testing.T) {
	t.Parallel()
	// Kogi, where no other test puts an address.
	const lat, lng = 7.8023, 6.7333
	v := newFieldVisit(t, "Kogi", "Lokoja", "Lokoja")
	p := newPhoneApp(t, lat, lng)
	p.signIn(v, false)

	var mu sync.Mutex
	keys := map[string][]string{} // action -> Idempotency-Key of every request
	portal, lost := false, false
	ctx, cancel := context.WithCancel(p.ctx)
	events := chromedp.Events(ctx, fetch.RequestPaused)
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/agent/v1/tasks/*/*"}}})
		return err
	}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range events {
			if err != nil {
				return
			}
			action := ev.Request.URL[strings.LastIndex(ev.Request.URL, "/")+1:]
			var call error
			mu.Lock()
			switch {
			case ev.ResponseStatusCode != 0 || ev.ResponseErrorReason != "":
				// The answer to the first photo, after the platform stored it: lost.
				_, call = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionReset})
			case action == "check-in" && !portal:
				portal = true
				_, call = chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 200,
					ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html"}}, Body: []byte("<html><body>Sign in to FreeWiFi</body></html>")})
			default:
				keys[action] = append(keys[action], fmt.Sprint(ev.Request.Headers["Idempotency-Key"]))
				intercept := action == "photos" && !lost
				lost = lost || intercept
				_, call = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID, InterceptResponse: &intercept})
			}
			mu.Unlock()
			if call != nil && ctx.Err() == nil {
				t.Errorf("interception: %v", call)
			}
		}
	}()
	defer func() { cancel(); <-done }()

	p.checkIn(false)
	p.photosAndOutcome(photoFiles(t, nil), false)
	p.see("All changes sent")
	p.see("No tasks")
	lenderSeesVerified(t, v)
	mu.Lock()
	defer mu.Unlock()
	if !portal || !lost {
		t.Fatalf("the faults were not all injected: portal %v, lost answer %v", portal, lost)
	}
	// The check-in reached the platform once, after the portal; the first
	// photo twice with one key; the second photo and the outcome once.
	if ph := keys["photos"]; len(keys["check-in"]) != 1 || len(ph) != 3 || ph[0] != ph[1] || ph[1] == ph[2] || len(keys["complete"]) != 1 {
		t.Fatalf("requests the platform received: %v", keys)
	}
}

// TestAgentAppRefusedAction: operations give the task to another agent
// while this phone, offline, holds a check-in for it. When the network
// returns the platform refuses it for good: the app drops it (it would
// block everything after it), tells the agent, and the task leaves the list.
func TestAgentAppRefusedAction(t *testing.T) {
	t.Parallel()
	// Kebbi, where no other test puts an address.
	const lat, lng = 12.4539, 4.1975
	lga := "Birnin Kebbi"
	v := newFieldVisit(t, "Kebbi", lga, "Birnin Kebbi")
	p := newPhoneApp(t, lat, lng)
	p.signIn(v, false)
	p.do(chromedp.PollFunction[chromedp.Void](`() => navigator.serviceWorker.controller !== null`, chromedp.WithPollingTimeout(time.Minute)))
	p.online(false)
	p.checkIn(false)
	p.see("1 waiting to sync")
	p.do(tap(chromedp.CSS(`#main .row button.secondary`)), chromedp.WaitVisible(chromedp.ID("start")),
		tap(chromedp.CSS(`#main > button.secondary`)))
	p.see("Visit under way")

	admin := func(method, path string, body any) harness.Response {
		return P.Do(t, harness.Request{Method: method, URL: P.URLs["verification"] + path, Key: harness.AdminToken, Body: body})
	}
	r := admin("POST", "/admin/v1/agents", map[string]any{"name": "Musa Bello", "phone": phone(), "states": []string{"Kebbi"}, "lgas": []string{lga}})
	var other struct{ ID string }
	r.Decode(t, &other)
	if r := admin("POST", "/admin/v1/tasks/"+v.addressID+"/reassign", map[string]any{"agentId": other.ID}); r.Status != http.StatusOK {
		t.Fatalf("reassign: %d %s", r.Status, r.Body)
	}

	p.online(true)
	p.see("Not accepted")
	p.see("All changes sent")
	p.see("No tasks")
	if _, s := status(t, v.key, v.customerID); s.Addresses[0].Status != "ASSIGNED" {
		t.Fatalf("the refused check-in moved the address: %s", mustJSON(s))
	}
}
