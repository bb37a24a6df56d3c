package e2e

import (
	"bytes"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"

	"github.com/kycfield/kyc/e2e/harness"
)

// totpCode is what an authenticator app with secret shows at t.
func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type enrolment struct {
	Secret     string
	OTPAuthURL string `json:"otpauthUrl"`
	QRCodePNG  []byte `json:"qrCodePng"`
}

// enrolTOTP sets up and confirms two-step sign-in for b's user with the
// previous step's code, so the current one is free for a log-in.
func enrolTOTP(t *testing.T, b *browser) string {
	t.Helper()
	r := b.call("POST", "/dashboard/v1/totp", nil)
	if r.Status != http.StatusCreated {
		t.Fatalf("enrol: %d %s", r.Status, r.Body)
	}
	var e enrolment
	r.Decode(t, &e)
	if _, err := png.Decode(bytes.NewReader(e.QRCodePNG)); err != nil || !strings.HasPrefix(e.OTPAuthURL, "otpauth://totp/KYC%20Field:") || len(e.Secret) < 16 {
		t.Fatalf("enrolment: %v %s", err, r.Body)
	}
	if r := b.call("GET", "/dashboard/v1/me", nil); !strings.Contains(string(r.Body), `"totpEnabled":false`) {
		t.Fatalf("me before confirming: %s", r.Body)
	}
	r = b.call("POST", "/dashboard/v1/totp/confirm", map[string]any{"code": "000000"})
	if r.Status != http.StatusBadRequest || r.Code() != "VALIDATION_ERROR" || details(r)["code"] == "" {
		t.Fatalf("confirm with a wrong code: %d %s", r.Status, r.Body)
	}
	if r := b.call("POST", "/dashboard/v1/totp/confirm", map[string]any{"code": totpCode(t, e.Secret, time.Now().Add(-30*time.Second))}); r.Status != http.StatusOK {
		t.Fatalf("confirm: %d %s", r.Status, r.Body)
	}
	if r := b.call("GET", "/dashboard/v1/me", nil); !strings.Contains(string(r.Body), `"totpEnabled":true`) {
		t.Fatalf("me after confirming: %s", r.Body)
	}
	return e.Secret
}

func TestTwoStepSignIn(t *testing.T) {
	t.Parallel()
	owner := newBrowser(t)
	email, _ := owner.signUp()
	secret := enrolTOTP(t, owner)
	if r := owner.call("POST", "/dashboard/v1/totp", nil); r.Status != http.StatusConflict || r.Code() != "TOTP_ALREADY_ENABLED" {
		t.Fatalf("enrol again: %d %s", r.Status, r.Body)
	}
	laptop, _ := newBrowserFrom(t)
	login := func(otp string) (int, string) {
		body := map[string]any{"email": email, "password": "correct horse battery"}
		if otp != "" {
			body["otp"] = otp
		}
		r := laptop.call("POST", "/dashboard/v1/login", body)
		return r.Status, r.Code()
	}
	if s, c := login(""); s != http.StatusUnauthorized || c != "OTP_REQUIRED" {
		t.Fatalf("right password, no code: %d %s", s, c)
	}
	if s, c := login("12345"); s != http.StatusUnauthorized || c != "INVALID_OTP" {
		t.Fatalf("a short code: %d %s", s, c)
	}
	// The code that confirmed enrolment cannot be used again.
	if s, c := login(totpCode(t, secret, time.Now().Add(-30*time.Second))); s != http.StatusUnauthorized || c != "INVALID_OTP" {
		t.Fatalf("a used code: %d %s", s, c)
	}
	if r := laptop.call("GET", "/dashboard/v1/me", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("a session without the second factor: %d", r.Status)
	}
	if s, c := login(totpCode(t, secret, time.Now())); s != http.StatusOK {
		t.Fatalf("password and current code: %d %s", s, c)
	}
	if r := laptop.call("GET", "/dashboard/v1/me", nil); r.Status != http.StatusOK {
		t.Fatalf("session: %d %s", r.Status, r.Body)
	}
	// A wrong password is still INVALID_CREDENTIALS, never OTP_REQUIRED.
	r := laptop.call("POST", "/dashboard/v1/login", map[string]any{"email": email, "password": "wrong password!"})
	if r.Status != http.StatusUnauthorized || r.Code() != "INVALID_CREDENTIALS" {
		t.Fatalf("wrong password: %d %s", r.Status, r.Body)
	}
}

func TestTwoStepSignInTurnedOff(t *testing.T) {
	t.Parallel()
	owner := newBrowser(t)
	email, _ := owner.signUp()
	secret := enrolTOTP(t, owner)
	if r := owner.call("POST", "/dashboard/v1/totp/disable", map[string]any{}); r.Status != http.StatusBadRequest || details(r)["code"] == "" {
		t.Fatalf("turn off without a code: %d %s", r.Status, r.Body)
	}
	if r := owner.call("POST", "/dashboard/v1/totp/disable", map[string]any{"code": totpCode(t, secret, time.Now())}); r.Status != http.StatusOK {
		t.Fatalf("turn off: %d %s", r.Status, r.Body)
	}
	if r := owner.call("POST", "/dashboard/v1/totp/disable", map[string]any{"code": "123456"}); r.Status != http.StatusConflict || r.Code() != "TOTP_NOT_ENROLLED" {
		t.Fatalf("turn off again: %d %s", r.Status, r.Body)
	}
	other, _ := newBrowserFrom(t)
	if r := other.call("POST", "/dashboard/v1/login", map[string]any{"email": email, "password": "correct horse battery"}); r.Status != http.StatusOK {
		t.Fatalf("log-in after turning it off: %d %s", r.Status, r.Body)
	}
	// Without a session the routes are closed.
	stranger := newBrowser(t)
	if r := stranger.call("POST", "/dashboard/v1/totp", nil); r.Status != http.StatusUnauthorized || r.Code() != "SESSION_REQUIRED" {
		t.Fatalf("enrol without a session: %d %s", r.Status, r.Body)
	}
}

// TestDashboardAppTwoStepSignIn: turn two-step sign-in on in the page with
// the key it shows, log out, and log in with password and code.
func TestDashboardAppTwoStepSignIn(t *testing.T) {
	t.Parallel()
	d := newDashPage(t)
	email := d.signUp(false)
	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/security"), chromedp.WaitVisible(chromedp.ID("totp-start")))
	d.see("Two-step sign-in is off")
	d.do(tap(chromedp.ID("totp-start")), chromedp.WaitVisible(chromedp.ID("totp-secret")))
	secret := d.value(`document.getElementById("totp-secret").value`)
	if n := d.value(`String(document.querySelector("img[alt^='QR code']").naturalWidth)`); n != "240" {
		t.Fatalf("QR code width %q", n)
	}
	d.do(chromedp.SendKeys(chromedp.ID("totp-code"), "000000"), tap(chromedp.ID("totp-confirm")))
	d.seeIn("totp-code-err", "is not the current code")
	// The current step's code: it stays valid until the end of the next
	// step, however slowly a loaded machine types and submits it (a
	// previous step's code, tried here before, expired within about 15 s).
	d.do(chromedp.SetValue(chromedp.ID("totp-code"), totpCode(t, secret, time.Now())), tap(chromedp.ID("totp-confirm")))
	d.see("Two-step sign-in is on")

	d.do(tap(chromedp.ID("logout")), chromedp.WaitVisible(chromedp.ID("log-in")))
	d.do(chromedp.SendKeys(chromedp.ID("email"), email), chromedp.SendKeys(chromedp.ID("password"), "correct horse battery"), tap(chromedp.ID("log-in")))
	d.see("Enter the 6-digit code from your authenticator app")
	// The next step's code: the one confirmed above is used up.
	d.do(chromedp.WaitVisible(chromedp.ID("otp")), chromedp.SendKeys(chromedp.ID("otp"), totpCode(t, secret, time.Now().Add(30*time.Second))), tap(chromedp.ID("log-in")))
	d.see("Your keys")
}

// An operator turns two-step sign-in off for a user who lost their phone
// (kycctl users reset-totp): the password alone works again.
func TestOperationsResetTwoStepSignIn(t *testing.T) {
	t.Parallel()
	owner := newBrowser(t)
	email, _ := owner.signUp()
	enrolTOTP(t, owner)
	reset := func(key, email string) harness.Response {
		return P.Do(t, harness.Request{Method: "POST", URL: P.URLs["auth-billing"] + "/admin/v1/users/totp/reset", Key: key,
			Body: map[string]any{"email": email}})
	}
	if r := reset("wrong-token", email); r.Status != http.StatusUnauthorized {
		t.Fatalf("reset with a wrong token: %d %s", r.Status, r.Body)
	}
	if r := reset(harness.AdminToken, "nobody@lender.ng"); r.Status != http.StatusNotFound {
		t.Fatalf("reset of an unknown user: %d %s", r.Status, r.Body)
	}
	if r := reset(harness.AdminToken, strings.ToUpper(email)); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"totpEnabled":false`) {
		t.Fatalf("reset: %d %s", r.Status, r.Body)
	}
	phone, _ := newBrowserFrom(t)
	if r := phone.call("POST", "/dashboard/v1/login", map[string]any{"email": email, "password": "correct horse battery"}); r.Status != http.StatusOK {
		t.Fatalf("log-in after the reset: %d %s", r.Status, r.Body)
	}
}
