package account

import (
	"errors"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/kycfield/kyc/pkg/apperr"
)

// plainSealer keeps secrets as they are; the keyring has its own tests.
type plainSealer struct{}

func (plainSealer) Seal(p, _ []byte) []byte          { return p }
func (plainSealer) Open(s, _ []byte) ([]byte, error) { return s, nil }

func TestCheckCode(t *testing.T) {
	t.Parallel()
	const secret = "JBSWY3DPEHPK3PXP"
	now := time.Date(2026, 11, 26, 9, 0, 15, 0, time.UTC)
	step := now.Unix() / totpPeriod
	code := func(at time.Time) string {
		c, err := totp.GenerateCode(secret, at)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	d := &Dashboard{sealer: plainSealer{}, now: func() time.Time { return now }}
	user := func(last int64) User {
		return User{ID: "usr_1", TOTP: TOTP{Secret: []byte(secret), Enabled: true, LastStep: last}}
	}
	for _, tc := range []struct {
		name string
		code string
		last int64
		want int64 // 0: refused
	}{
		{"the current code", code(now), 0, step},
		{"the previous step's (a slow phone)", code(now.Add(-30 * time.Second)), 0, step - 1},
		{"the next step's (a fast phone)", code(now.Add(30 * time.Second)), 0, step + 1},
		{"two steps old", code(now.Add(-60 * time.Second)), 0, 0},
		{"the current code again (replay)", code(now), step, 0},
		{"the previous code after the current was used", code(now.Add(-30 * time.Second)), step, 0},
		{"five digits", code(now)[:5], 0, 0},
		{"empty", "", 0, 0},
	} {
		got, err := d.checkCode(user(tc.last), tc.code)
		if tc.want == 0 {
			if !errors.Is(err, ErrInvalidOTP) {
				t.Errorf("%s: got step %d, %v; want INVALID_OTP", tc.name, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %d, %v; want step %d", tc.name, got, err, tc.want)
		}
	}
	if _, err := d.checkCode(User{ID: "usr_1", TOTP: TOTP{Secret: []byte("not base32!")}}, "123456"); err == nil || apperr.IsCode(err, CodeInvalidOTP) {
		t.Fatalf("an unreadable secret: %v; want an internal error", err)
	}
}
