package account

import (
	"bytes"
	"context"
	"crypto/subtle"
	"image/png"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/kycfield/kyc/pkg/apperr"
)

// TOTP is a dashboard user's optional second factor.
type TOTP struct {
	// Secret is the sealed base32 secret; nil when the user has none.
	Secret []byte
	// Enabled is set once the user confirmed a code from their app; only
	// then does log-in ask for one.
	Enabled bool
	// LastStep is the last 30-second step a code was accepted for: a code
	// works once.
	LastStep int64
}

// Sealer encrypts TOTP secrets at rest (pkg/keyring).
type Sealer interface {
	Seal(plaintext, aad []byte) []byte
	Open(sealed, aad []byte) ([]byte, error)
}

// TOTPIssuer is the name authenticator apps show beside the account.
const TOTPIssuer = "KYC Field"

// Error codes of the second factor.
const (
	CodeOTPRequired     = "OTP_REQUIRED"
	CodeInvalidOTP      = "INVALID_OTP"
	CodeTOTPEnabled     = "TOTP_ALREADY_ENABLED"
	CodeTOTPNotEnrolled = "TOTP_NOT_ENROLLED"
)

var (
	// ErrOTPRequired answers a right password of a user with TOTP on and
	// no code: the client asks for the code and sends both again.
	ErrOTPRequired = apperr.New(apperr.KindUnauthorized, CodeOTPRequired, "Enter the 6-digit code from your authenticator app")
	// ErrInvalidOTP answers a wrong, old or reused code at log-in.
	ErrInvalidOTP = apperr.New(apperr.KindUnauthorized, CodeInvalidOTP, "The code is wrong or has expired; enter the current one")
	errTOTPOn     = apperr.New(apperr.KindConflict, CodeTOTPEnabled, "Two-step sign-in is already on; turn it off first to enrol another app")
	errNoTOTP     = apperr.New(apperr.KindConflict, CodeTOTPNotEnrolled, "Two-step sign-in is not set up; start with POST /dashboard/v1/totp")
	errBadCode    = apperr.Validation(apperr.Detail{Field: "code", Message: "is not the current code of your authenticator app"})
)

// Enrolment is what a user adds to an authenticator app.
type Enrolment struct {
	Secret string // base32, for typing in
	URL    string // otpauth:// URL
	QRPNG  []byte // the URL as a QR code
}

// EnrolTOTP gives the session's user a new secret, not yet on: ConfirmTOTP
// with a code from the app turns it on. Enrolling again before confirming
// replaces the secret.
func (d *Dashboard) EnrolTOTP(ctx context.Context, s Session) (Enrolment, error) {
	var e Enrolment
	err := d.store.Atomic(ctx, func(tx Tx) error {
		u, err := tx.User(ctx, s.UserID)
		if err != nil {
			return err
		}
		if u.TOTP.Enabled {
			return errTOTPOn
		}
		key, err := totp.Generate(totp.GenerateOpts{Issuer: TOTPIssuer, AccountName: u.Email})
		if err != nil {
			return apperr.Internal(err)
		}
		img, err := key.Image(240, 240)
		if err != nil {
			return apperr.Internal(err)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return apperr.Internal(err)
		}
		e = Enrolment{Secret: key.Secret(), URL: key.URL(), QRPNG: buf.Bytes()}
		return tx.SetTOTP(ctx, u.ID, TOTP{Secret: d.sealer.Seal([]byte(key.Secret()), []byte(u.ID))})
	})
	return e, err
}

// ConfirmTOTP turns the second factor on with a code from the app.
func (d *Dashboard) ConfirmTOTP(ctx context.Context, s Session, code string) error {
	return d.store.Atomic(ctx, func(tx Tx) error {
		u, err := tx.User(ctx, s.UserID)
		if err != nil {
			return err
		}
		if u.TOTP.Enabled {
			return errTOTPOn
		}
		if u.TOTP.Secret == nil {
			return errNoTOTP
		}
		step, err := d.checkCode(u, code)
		if err != nil {
			return errBadCode
		}
		if err := tx.SetTOTP(ctx, u.ID, TOTP{Secret: u.TOTP.Secret, Enabled: true, LastStep: step}); err != nil {
			return err
		}
		return auditDone(ctx, tx, "totp.enable", u.ID, "", nil)
	})
}

// DisableTOTP turns the second factor off; it takes a current code, so a
// session left open on a shared computer cannot remove it.
func (d *Dashboard) DisableTOTP(ctx context.Context, s Session, code string) error {
	return d.store.Atomic(ctx, func(tx Tx) error {
		u, err := tx.User(ctx, s.UserID)
		if err != nil {
			return err
		}
		if !u.TOTP.Enabled {
			return errNoTOTP
		}
		if _, err := d.checkCode(u, code); err != nil {
			return errBadCode
		}
		if err := tx.SetTOTP(ctx, u.ID, TOTP{}); err != nil {
			return err
		}
		return auditDone(ctx, tx, "totp.disable", u.ID, "", nil)
	})
}

// ResetTOTP turns the second factor of the user with email off, for
// operations when a user has lost their phone (kycctl users reset-totp),
// after checking who is asking.
func (d *Dashboard) ResetTOTP(ctx context.Context, email string) (User, error) {
	em, _ := NormalizeEmail(email)
	var u User
	err := d.store.Atomic(ctx, func(tx Tx) (err error) {
		if u, err = tx.UserByEmail(ctx, em); err != nil {
			return err
		}
		u.TOTP = TOTP{}
		return tx.SetTOTP(ctx, u.ID, u.TOTP)
	})
	return u, err
}

// secondFactor is log-in's check of a user with TOTP on, inside its
// transaction: the code's step is recorded so it cannot be replayed.
func (d *Dashboard) secondFactor(ctx context.Context, tx Tx, u User, code string) error {
	if !u.TOTP.Enabled {
		return nil
	}
	if code == "" {
		return ErrOTPRequired
	}
	step, err := d.checkCode(u, code)
	if err != nil {
		return ErrInvalidOTP
	}
	t := u.TOTP
	t.LastStep = step
	return tx.SetTOTP(ctx, u.ID, t)
}

// totpPeriod and the one-step skew each way are RFC 6238's defaults (what
// every authenticator app uses): a code is accepted from 30 s before its
// step to 30 s after, for phones whose clocks drift.
const totpPeriod = 30

// checkCode returns the step code is valid for, later than the last one
// accepted.
func (d *Dashboard) checkCode(u User, code string) (int64, error) {
	return verifyCode(d.sealer, d.now(), u.TOTP.Secret, u.ID, u.TOTP.LastStep, code)
}

// verifyCode opens a secret sealed with aad and returns the step code is
// valid for at now, later than lastStep (a code works once). It compares
// every candidate in constant time. Dashboard users and staff share it.
func verifyCode(sealer Sealer, now time.Time, sealed []byte, aad string, lastStep int64, code string) (int64, error) {
	secret, err := sealer.Open(sealed, []byte(aad))
	if err != nil {
		return 0, apperr.Internal(err)
	}
	if len(code) != 6 {
		return 0, ErrInvalidOTP
	}
	cur := now.Unix() / totpPeriod
	opts := totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}
	found := int64(0)
	for step := cur - 1; step <= cur+1; step++ {
		want, err := totp.GenerateCodeCustom(string(secret), time.Unix(step*totpPeriod, 0), opts)
		if err != nil {
			return 0, apperr.Internal(err)
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && step > lastStep && found == 0 {
			found = step
		}
	}
	if found == 0 {
		return 0, ErrInvalidOTP
	}
	return found, nil
}
