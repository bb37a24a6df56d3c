package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/mail"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/auth-billing/internal/passwords"
)

// User is a dashboard user; each belongs to one organization.
type User struct {
	ID    string `json:"id"`
	OrgID string `json:"orgId"`
	Email string `json:"email"`
	// Name is what the team page shows; empty for users who signed up
	// before teams existed.
	Name string `json:"name"`
	// Role is what the user may do in their organization.
	Role         principal.MemberRole `json:"role"`
	PasswordHash []byte               `json:"-"`
	TOTP         TOTP                 `json:"-"`
	CreatedAt    time.Time            `json:"createdAt"`
}

// Session is a dashboard login. Only the token's hash is stored.
type Session struct {
	Hash      []byte
	UserID    string
	OrgID     string
	CSRFToken string
	CreatedAt time.Time
	ExpiresAt time.Time
	// Role is the user's role, read with the session on every request
	// (never stored with it): a role change applies to the next request.
	Role principal.MemberRole
}

// Throttle limits log-in attempts. Every attempt is reserved before its
// password is compared, so parallel attempts cannot exceed a limit.
type Throttle interface {
	// Reserve counts an attempt for email from clientIP; a positive wait
	// refuses it (and it is then not counted).
	Reserve(ctx context.Context, email, clientIP string) (wait time.Duration, err error)
	// Succeeded gives back the attempt of a successful log-in.
	Succeeded(ctx context.Context, email, clientIP string) error
}

// Dashboard holds the sign-up, log-in and session use cases.
type Dashboard struct {
	store      Store
	accounts   *Service
	throttle   Throttle
	sealer     Sealer
	now        func() time.Time
	cost       int
	sessionTTL time.Duration
	dummyHash  []byte
}

// NewDashboard returns the dashboard use cases; cost is the bcrypt cost,
// sealer encrypts TOTP secrets.
func NewDashboard(s Store, a *Service, t Throttle, sealer Sealer, now func() time.Time, cost int, sessionTTL time.Duration) *Dashboard {
	dummy, _ := bcrypt.GenerateFromPassword([]byte("timing-equaliser"), cost)
	return &Dashboard{store: s, accounts: a, throttle: t, sealer: sealer, now: now, cost: cost, sessionTTL: sessionTTL, dummyHash: dummy}
}

// Login is what a successful sign-up or log-in returns to the transport.
type Login struct {
	Token string
	User  User
	Org   Org
	CSRF  string
	// Expires is when the session ends.
	Expires time.Time
}

// ErrInvalidCredentials does not say which part was wrong.
var ErrInvalidCredentials = apperr.New(apperr.KindUnauthorized, CodeInvalidCredentials, "Email or password is incorrect")

// ErrSessionRequired answers dashboard calls without a valid session.
var ErrSessionRequired = apperr.New(apperr.KindUnauthorized, CodeSessionRequired, "Log in to the dashboard first")

// NormalizeEmail validates and lower-cases an email address.
func NormalizeEmail(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || len(s) > 254 || !strings.Contains(s[strings.LastIndexByte(s, '@'):], ".") {
		return "", false
	}
	return s, true
}

func validatePassword(p string) error {
	// bcrypt reads at most 72 bytes; longer passwords would be silently cut.
	if utf8.RuneCountInString(p) < 10 || len(p) > 72 {
		return apperr.Validation(apperr.Detail{Field: "password", Message: "must be at least 10 characters and at most 72 bytes"})
	}
	if w := passwords.Check(p); w != "" {
		return apperr.Validation(apperr.Detail{Field: "password", Message: string(w)})
	}
	return nil
}

// SignUp creates an organization on the Developer plan with its first
// user, and logs the user in.
func (d *Dashboard) SignUp(ctx context.Context, orgName, email, password string) (Login, error) {
	var details []apperr.Detail
	em, ok := NormalizeEmail(email)
	if !ok {
		details = append(details, apperr.Detail{Field: "email", Message: "must be a valid email address"})
	}
	if err := validatePassword(password); err != nil {
		details = append(details, err.(*apperr.Error).Details...)
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(orgName)); n < 2 || n > 100 {
		details = append(details, apperr.Detail{Field: "organizationName", Message: "must be 2-100 characters"})
	}
	if len(details) > 0 {
		return Login{}, apperr.Validation(details...)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), d.cost)
	if err != nil {
		return Login{}, apperr.Internal(err)
	}
	now := d.now().UTC()
	org := withDefaultSettings(Org{ID: ids.New("org"), Name: strings.TrimSpace(orgName), Plan: PlanDeveloper, Version: 1, CreatedAt: now, UpdatedAt: now})
	user := User{ID: ids.New("usr"), OrgID: org.ID, Email: em, Role: principal.MemberOwner, PasswordHash: hash, CreatedAt: now}
	var login Login
	err = d.store.Atomic(ctx, func(tx Tx) error {
		if _, err := tx.UserByEmail(ctx, em); err == nil {
			return apperr.New(apperr.KindConflict, CodeEmailTaken, "An account with this email already exists; log in instead")
		} else if !apperr.IsCode(err, apperr.CodeNotFound) {
			return err
		}
		if err := tx.InsertOrg(ctx, org); err != nil {
			return err
		}
		if err := tx.StartPlanPeriod(ctx, org.ID, org.Plan, now); err != nil {
			return err
		}
		if err := tx.InsertUser(ctx, user); err != nil {
			return err
		}
		if err := tx.Emit(ctx, Change{Type: EventOrgCreated, OrgID: org.ID, Data: StateOf(org)}); err != nil {
			return err
		}
		login, err = d.startSession(ctx, tx, user, org)
		return err
	})
	return login, err
}

// LogIn checks credentials, and the TOTP code (otp) of a user who turned
// the second factor on. The attempt is counted before the password is
// compared (see package throttle for the limits), and given back when it
// succeeds.
func (d *Dashboard) LogIn(ctx context.Context, email, password, otp, clientIP string) (Login, error) {
	em, _ := NormalizeEmail(email)
	if wait, err := d.throttle.Reserve(ctx, em, clientIP); err != nil {
		return Login{}, err
	} else if wait > 0 {
		return Login{}, apperr.New(apperr.KindRateLimited, CodeTooManyAttempts, "Too many failed log-in attempts; try again later").
			WithHeader("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
	}
	var login Login
	var tried User
	err := d.store.Atomic(ctx, func(tx Tx) error {
		u, err := tx.UserByEmail(ctx, em)
		if err != nil && !apperr.IsCode(err, apperr.CodeNotFound) {
			return err
		}
		tried = u
		hash := u.PasswordHash
		if err != nil {
			hash = d.dummyHash // same work whether or not the user exists
		}
		if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil || u.ID == "" {
			return ErrInvalidCredentials
		}
		if err := d.secondFactor(ctx, tx, u, otp); err != nil {
			return err
		}
		org, err := tx.Org(ctx, u.OrgID, false)
		if err != nil {
			return err
		}
		a := ActorOf(u, clientIP)
		if err := tx.OrgAudit(ctx, u.OrgID, "", a.Action("member.sign_in", u.ID, orgaudit.Done, nil)); err != nil {
			return err
		}
		login, err = d.startSession(ctx, tx, u, org)
		return err
	})
	if err == nil {
		_ = d.throttle.Succeeded(ctx, em, clientIP)
	} else if tried.ID != "" && (apperr.IsCode(err, CodeInvalidCredentials) || apperr.IsCode(err, CodeInvalidOTP)) {
		d.auditFailedSignIn(ctx, tried, clientIP, err)
	}
	return login, err
}

// auditFailedSignIn records a wrong password or code for a known user in
// a transaction of its own (the attempt's was rolled back), so the
// owners see someone trying a member's account. An unknown email has no
// organization to tell. A failure to record it leaves the answer a 401.
func (d *Dashboard) auditFailedSignIn(ctx context.Context, u User, clientIP string, cause error) {
	reason := "password"
	if apperr.IsCode(cause, CodeInvalidOTP) {
		reason = "code"
	}
	a := ActorOf(u, clientIP)
	_ = d.store.Atomic(ctx, func(tx Tx) error {
		return tx.OrgAudit(ctx, u.OrgID, "", a.Action("member.sign_in_failed", u.ID, orgaudit.Refused, map[string]any{"reason": reason}))
	})
}

func (d *Dashboard) startSession(ctx context.Context, tx Tx, u User, o Org) (Login, error) {
	token, csrf := randomToken(), randomToken()
	now := d.now().UTC()
	s := Session{Hash: hashToken(token), UserID: u.ID, OrgID: u.OrgID, CSRFToken: csrf, CreatedAt: now, ExpiresAt: now.Add(d.sessionTTL)}
	if err := tx.InsertSession(ctx, s); err != nil {
		return Login{}, err
	}
	return Login{Token: token, User: u, Org: o, CSRF: csrf, Expires: s.ExpiresAt}, nil
}

// Authenticate returns the live session for a cookie token.
func (d *Dashboard) Authenticate(ctx context.Context, token string) (Session, error) {
	if token == "" {
		return Session{}, ErrSessionRequired
	}
	var s Session
	err := d.store.Atomic(ctx, func(tx Tx) (err error) {
		s, err = tx.SessionByHash(ctx, hashToken(token))
		return err
	})
	if apperr.IsCode(err, apperr.CodeNotFound) || (err == nil && !d.now().Before(s.ExpiresAt)) {
		return Session{}, ErrSessionRequired
	}
	return s, err
}

// ErrCSRF refuses a session request without the session's CSRF token.
var ErrCSRF = apperr.New(apperr.KindForbidden, CodeCSRF,
	"Missing or invalid "+apikey.CSRFHeader+" header; use the csrfToken returned at log-in")

// CheckCSRF compares a request's CSRF token with the session's in
// constant time.
func (s Session) CheckCSRF(token string) error {
	if subtle.ConstantTimeCompare([]byte(token), []byte(s.CSRFToken)) != 1 {
		return ErrCSRF
	}
	return nil
}

// ResolveSession is the gateway's check of a dashboard session calling
// the public API: a live session, its CSRF token, and its organization's
// state as a key resolve gives it.
func (d *Dashboard) ResolveSession(ctx context.Context, token, csrf string) (Session, OrgState, error) {
	s, err := d.Authenticate(ctx, token)
	if err != nil {
		return Session{}, OrgState{}, err
	}
	if err := s.CheckCSRF(csrf); err != nil {
		return Session{}, OrgState{}, err
	}
	var o Org
	err = d.store.Atomic(ctx, func(tx Tx) (err error) {
		o, err = tx.Org(ctx, s.OrgID, false)
		return err
	})
	if err != nil {
		return Session{}, OrgState{}, err
	}
	return s, StateOf(o), nil
}

// LogOut ends a session.
func (d *Dashboard) LogOut(ctx context.Context, token string) error {
	return d.store.Atomic(ctx, func(tx Tx) error { return tx.DeleteSession(ctx, hashToken(token)) })
}

// Me returns the user and organization of a session.
func (d *Dashboard) Me(ctx context.Context, s Session) (User, Org, error) {
	var u User
	var o Org
	err := d.store.Atomic(ctx, func(tx Tx) (err error) {
		if u, err = tx.User(ctx, s.UserID); err != nil {
			return err
		}
		o, err = tx.Org(ctx, s.OrgID, false)
		return err
	})
	return u, o, err
}

func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func hashToken(t string) []byte {
	h := sha256.Sum256([]byte(t))
	return h[:]
}
