package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/envelope"
)

// loopbacks hands out client addresses: the gateway sees the peer address
// of each connection (no proxy is trusted in the harness), and Linux
// routes all of 127.0.0.0/8 to the loopback interface, so a client bound
// to 127.0.x.y is a different client address.
var loopbacks atomic.Int64

func nextLoopback() string {
	n := loopbacks.Add(1)
	return fmt.Sprintf("127.0.%d.%d", 100+n/250, 1+n%250)
}

// newBrowserFrom is a browser whose connections come from its own
// loopback address.
func newBrowserFrom(t *testing.T) (*browser, string) {
	ip := nextLoopback()
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 32}
	t.Cleanup(tr.CloseIdleConnections)
	return &browser{t: t, http: &http.Client{Jar: jar, Timeout: 10 * time.Second, Transport: tr}}, ip
}

// burst sends n requests at once from b's address and counts the answers
// by status; every 429 must carry Retry-After. Each request claims another
// client address in X-Forwarded-For, which the gateway must ignore.
func burst(t *testing.T, b *browser, n int, path string, body any) map[int]int {
	t.Helper()
	return burstOf(t, b, n, path, func(int) any { return body })
}

// burstOf is burst with the i-th request's body made by body(i).
func burstOf(t *testing.T, b *browser, n int, path string, body func(i int) any) map[int]int {
	t.Helper()
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		raw, _ := json.Marshal(body(i))
		wg.Go(func() {
			req, _ := http.NewRequest("POST", P.GatewayURL+path, bytes.NewReader(raw))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Forwarded-For", fmt.Sprintf("192.0.2.%d", i+1))
			<-start
			res, err := b.http.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			var env envelope.Response
			_ = json.NewDecoder(res.Body).Decode(&env)
			if res.StatusCode == http.StatusTooManyRequests {
				s, err := strconv.Atoi(res.Header.Get("Retry-After"))
				if err != nil || s <= 0 || env.Error == nil || env.Error.Code == "" {
					t.Errorf("429 without Retry-After or code: %q %+v", res.Header.Get("Retry-After"), env.Error)
				}
			}
			mu.Lock()
			got[res.StatusCode]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return got
}

// A burst of wrong passwords sent at once is counted before any is
// compared: 5 answers 401, the rest 429. The owner signing in from
// another address is not held up by it.
func TestLoginBurstIsCountedBeforeComparing(t *testing.T) {
	t.Parallel()
	owner := newBrowser(t)
	email, _ := owner.signUp()
	attacker, _ := newBrowserFrom(t)
	got := burst(t, attacker, 20, "/dashboard/v1/login", map[string]any{"email": email, "password": "wrong password!"})
	if got[http.StatusUnauthorized] != 5 || got[http.StatusTooManyRequests] != 15 {
		t.Fatalf("20 parallel wrong log-ins: %v; want 5 x 401 and 15 x 429", got)
	}
	// The attacker's own address stays blocked for this email, even with
	// the right password.
	if r := attacker.call("POST", "/dashboard/v1/login", map[string]any{"email": email, "password": "correct horse battery"}); r.Status != http.StatusTooManyRequests || r.Code() != "TOO_MANY_ATTEMPTS" {
		t.Fatalf("attacker's address: %d %s", r.Status, r.Body)
	}
	fresh, _ := newBrowserFrom(t)
	if r := fresh.call("POST", "/dashboard/v1/login", map[string]any{"email": email, "password": "correct horse battery"}); r.Status != http.StatusOK {
		t.Fatalf("the owner from a new address after the burst: %d %s", r.Status, r.Body)
	}
	if r := fresh.call("GET", "/dashboard/v1/me", nil); r.Status != http.StatusOK {
		t.Fatalf("session: %d %s", r.Status, r.Body)
	}
}

// When failures from many addresses fill the email's own limit, only
// addresses the account has not signed in from are refused.
func TestLoginEmailLimitSparesKnownAddresses(t *testing.T) {
	t.Parallel()
	owner := newBrowser(t)
	email, _ := owner.signUp()
	office, _ := newBrowserFrom(t)
	right := map[string]any{"email": email, "password": "correct horse battery"}
	if r := office.call("POST", "/dashboard/v1/login", right); r.Status != http.StatusOK {
		t.Fatalf("office log-in: %d %s", r.Status, r.Body)
	}
	for range 2 {
		attacker, _ := newBrowserFrom(t)
		if got := burst(t, attacker, 8, "/dashboard/v1/login", map[string]any{"email": email, "password": "wrong password!"}); got[http.StatusUnauthorized] != 5 {
			t.Fatalf("attacker: %v", got)
		}
	}
	stranger, _ := newBrowserFrom(t)
	r := stranger.call("POST", "/dashboard/v1/login", right)
	if r.Status != http.StatusTooManyRequests || r.Code() != "TOO_MANY_ATTEMPTS" {
		t.Fatalf("new address after 10 failures from others: %d %s", r.Status, r.Body)
	}
	if s, _ := strconv.Atoi(r.Header.Get("Retry-After")); s <= 0 || s > 15*60 {
		t.Fatalf("Retry-After %q; want at most one 15-minute window", r.Header.Get("Retry-After"))
	}
	if r := office.call("POST", "/dashboard/v1/login", right); r.Status != http.StatusOK {
		t.Fatalf("known office address during the attack: %d %s", r.Status, r.Body)
	}
}

// A dashboard password that is only spaces, repetitive or common is
// refused at sign-up with the password field named.
func TestSignUpRefusesWeakPasswords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ password, message string }{
		{"aaaaaaaaaa", "must use at least 5 different characters"},
		{"          ", "must not be only spaces"},
		{"1234567890", "is too common"},
		{"Password2024!", "is too common"},
		{"short", "must be at least 10 characters"},
	} {
		b := newBrowser(t)
		r := b.call("POST", "/dashboard/v1/signup", map[string]any{"organizationName": "Weak Lender",
			"email": fmt.Sprintf("weak%d@lender.ng", time.Now().UnixNano()), "password": tc.password})
		if r.Status != http.StatusBadRequest || r.Code() != "VALIDATION_ERROR" || !strings.HasPrefix(details(r)["password"], tc.message) || len(details(r)) != 1 {
			t.Errorf("password %q: %d %s; want 400 VALIDATION_ERROR, password: %q", tc.password, r.Status, r.Body, tc.message)
		}
	}
}

// One address sending sign-ins for 40 unknown phones at once meets the
// per-address limit: 20 are answered, the rest get 429.
func TestAgentSignInIsLimitedPerAddress(t *testing.T) {
	t.Parallel()
	sweeper, _ := newBrowserFrom(t)
	got := burstOf(t, sweeper, 40, "/agent/v1/session", func(i int) any {
		return map[string]any{"phone": fmt.Sprintf("+2349099%06d", i), "code": "123456"}
	})
	if got[http.StatusUnauthorized] != 20 || got[http.StatusTooManyRequests] != 20 {
		t.Fatalf("40 sign-ins with unknown phones from one address: %v; want 20 x 401 and 20 x 429", got)
	}
}

// An outsider who knows an agent's phone gets 5 guesses from an address
// and cannot destroy the agent's pending code. Writing the phone in its
// other forms (0803..., with spaces or dashes) buys no more guesses: every
// form counts as the one number. The agent signs in with the local form.
func TestAgentCodeSurvivesAnOutsidersGuesses(t *testing.T) {
	t.Parallel()
	_, ph, code := agentWithCode(t, P, "Ngozi Okafor", []string{"Enugu"}, nil)
	forms := []string{ph, localPhone(ph), strings.ReplaceAll(localPhone(ph), " ", "-"), "+234 " + ph[4:7] + " " + ph[7:]}
	outsider, _ := newBrowserFrom(t)
	got := burstOf(t, outsider, 12, "/agent/v1/session", func(i int) any {
		c, _ := strconv.Atoi(code)
		return map[string]any{"phone": forms[i%len(forms)], "code": fmt.Sprintf("%06d", (c+1+i)%1_000_000)}
	})
	if got[http.StatusUnauthorized] != 5 || got[http.StatusTooManyRequests] != 7 {
		t.Fatalf("12 wrong codes from one address, the phone in 4 forms: %v; want 5 x 401 and 7 x 429", got)
	}
	agent, _ := newBrowserFrom(t)
	if r := agent.call("POST", "/agent/v1/session", map[string]any{"phone": localPhone(ph), "code": code}); r.Status != http.StatusCreated {
		t.Fatalf("the agent's own sign-in (%q) after the outsider's guesses: %d %s", localPhone(ph), r.Status, r.Body)
	}
}

// localPhone is an E.164 Nigerian number as agents write it: 0803 123 4567.
func localPhone(e164 string) string {
	return "0" + e164[4:7] + " " + e164[7:10] + " " + e164[10:]
}

// The agent app tells a throttled agent to wait, not that the phone is
// offline. Chromium connects from 127.0.0.1, so the 5 wrong codes are sent
// from there too.
func TestAgentAppSaysWhenSignInIsThrottled(t *testing.T) {
	t.Parallel()
	_, ph, code := agentWithCode(t, P, "Ngozi Okafor", []string{"Enugu"}, nil)
	c, _ := strconv.Atoi(code)
	for i := range 5 {
		r := P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/agent/v1/session",
			Body: map[string]any{"phone": ph, "code": fmt.Sprintf("%06d", (c+1+i)%1_000_000)}})
		if r.Status != http.StatusUnauthorized {
			t.Fatalf("wrong code %d: %d %s", i, r.Status, r.Body)
		}
	}
	p := newPhoneApp(t, 6.45, 7.51)
	p.do(chromedp.Navigate(P.GatewayURL+"/agent/"), chromedp.WaitVisible(chromedp.ID("phone")),
		chromedp.SendKeys(chromedp.ID("phone"), ph), chromedp.SendKeys(chromedp.ID("code"), code), tap(chromedp.ID("sign-in")))
	p.see("Too many tries from this network. Wait 15 minute(s), then try again.")
	if strings.Contains(p.screen(), "offline") {
		t.Fatalf("the throttled agent was told they are offline: %s", p.screen())
	}
}
