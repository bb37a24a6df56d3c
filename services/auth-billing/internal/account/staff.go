package account

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pquerna/otp/totp"
	"golang.org/x/crypto/bcrypt"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/principal"
)

// Member is one of our operations staff (the console at /ops/). Members
// are not dashboard users: another table, another session store and
// cookie, and a TOTP code on every sign-in, since staff see every
// lender's customers.
type Member struct {
	ID    string
	Email string
	Name  string
	Role  principal.Role
	// PasswordHash is nil until the member finishes enrolment.
	PasswordHash []byte
	// TOTPSecret is sealed (the member's id as associated data); set when
	// enrolment starts. TOTPLastStep makes each code work once.
	TOTPSecret   []byte
	TOTPLastStep int64
	DisabledAt   *time.Time
	CreatedAt    time.Time
}

// Enrolled reports whether the member has a password (and so a confirmed
// TOTP secret).
func (m Member) Enrolled() bool { return m.PasswordHash != nil }

// State is the member as the gateway puts it in a staff principal.
func (m Member) State() principal.StaffState {
	return principal.StaffState{ID: m.ID, Email: m.Email, Name: m.Name, Role: m.Role}
}

// StaffEnrolment is a one-time enrolment link; only its token's hash is
// stored.
type StaffEnrolment struct {
	Hash      []byte
	StaffID   string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// StaffSession is a staff sign-in; only its token's hash is stored.
type StaffSession struct {
	Hash      []byte
	StaffID   string
	CSRFToken string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Error codes of staff accounts.
const (
	CodeStaffSessionRequired = "STAFF_SESSION_REQUIRED" // the gateway's code too
	CodeStaffEmailTaken      = "STAFF_EMAIL_TAKEN"
	CodeEnrolmentInvalid     = "ENROLMENT_INVALID"
	CodeCannotDisableSelf    = "CANNOT_DISABLE_SELF"
)

var (
	// ErrStaffSession answers a console call without a live staff session.
	ErrStaffSession = apperr.New(apperr.KindUnauthorized, CodeStaffSessionRequired, "Sign in to the operations console first")
	// ErrStaffEmailTaken refuses a second member with the same email.
	ErrStaffEmailTaken = apperr.New(apperr.KindConflict, CodeStaffEmailTaken, "A staff member with this email already exists")
	errEnrolment       = apperr.New(apperr.KindNotFound, CodeEnrolmentInvalid,
		"This enrolment link is unknown, already used or expired; ask an admin for a new one")
	errDisableSelf = apperr.New(apperr.KindConflict, CodeCannotDisableSelf, "You cannot disable your own account; ask another admin")
)

// StaffOptions are the lifetimes of staff links and sessions.
type StaffOptions struct {
	// SessionTTL is how long a staff sign-in lasts (12 h).
	SessionTTL time.Duration
	// EnrolTTL is how long an enrolment link works (72 h).
	EnrolTTL time.Duration
	// Cost is the bcrypt cost.
	Cost int
}

// Staff holds the staff accounts' use cases: enrolment, sign-in and
// sessions, management by admins, and the audit log.
type Staff struct {
	store     Store
	throttle  Throttle
	sealer    Sealer
	now       func() time.Time
	opt       StaffOptions
	dummyHash []byte
}

// NewStaff returns the staff use cases. t counts sign-in attempts (a
// throttle of its own, so staff and dashboard counters never mix).
func NewStaff(s Store, t Throttle, sealer Sealer, now func() time.Time, opt StaffOptions) *Staff {
	dummy, _ := bcrypt.GenerateFromPassword([]byte("timing-equaliser"), opt.Cost)
	return &Staff{store: s, throttle: t, sealer: sealer, now: now, opt: opt, dummyHash: dummy}
}

// StaffLogin is a started staff session.
type StaffLogin struct {
	Token   string
	Member  Member
	CSRF    string
	Expires time.Time
}

// NewMember is a created member with the token of their one-time
// enrolment link, shown once.
type NewMember struct {
	Member
	EnrolToken   string
	EnrolExpires time.Time
}

// validateMember returns every problem with a new member at once.
func validateMember(email, name string, role principal.Role) (string, string, error) {
	var details []apperr.Detail
	em, ok := NormalizeEmail(email)
	if !ok {
		details = append(details, apperr.Detail{Field: "email", Message: "must be a valid email address"})
	}
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n < 2 || n > 100 {
		details = append(details, apperr.Detail{Field: "name", Message: "must be 2-100 characters"})
	}
	if !role.Valid() {
		details = append(details, apperr.Detail{Field: "role", Message: "must be one of admin, dispatcher, reviewer"})
	}
	if len(details) > 0 {
		return "", "", apperr.Validation(details...)
	}
	return em, name, nil
}

// Create adds a member and their enrolment link, audited as done by ctx's
// caller (a staff admin, or the operators' admin token).
func (s *Staff) Create(ctx context.Context, email, name string, role principal.Role) (NewMember, error) {
	em, name, err := validateMember(email, name, role)
	if err != nil {
		return NewMember{}, err
	}
	now := s.now().UTC()
	m := Member{ID: ids.New("stf"), Email: em, Name: name, Role: role, CreatedAt: now}
	token := randomToken()
	e := StaffEnrolment{Hash: hashToken(token), StaffID: m.ID, CreatedAt: now, ExpiresAt: now.Add(s.opt.EnrolTTL)}
	err = s.store.Atomic(ctx, func(tx Tx) error {
		if err := tx.InsertStaff(ctx, m); err != nil {
			return err
		}
		if err := tx.InsertStaffEnrolment(ctx, e); err != nil {
			return err
		}
		return tx.Audit(ctx, "staff.create", m.ID, "", map[string]any{"email": m.Email, "name": m.Name, "role": string(m.Role)})
	})
	return NewMember{Member: m, EnrolToken: token, EnrolExpires: e.ExpiresAt}, err
}

// EnrolmentStart is what the console shows a member enrolling: who they
// are and the secret to add to an authenticator app.
type EnrolmentStart struct {
	Member Member
	Secret string // base32, for typing in
	URL    string // otpauth:// URI
}

// enrolment returns the live enrolment of token and its member, locked.
func (s *Staff) enrolment(ctx context.Context, tx Tx, token string) (StaffEnrolment, Member, error) {
	if token == "" {
		return StaffEnrolment{}, Member{}, errEnrolment
	}
	e, err := tx.StaffEnrolment(ctx, hashToken(token))
	if apperr.IsCode(err, apperr.CodeNotFound) {
		return StaffEnrolment{}, Member{}, errEnrolment
	} else if err != nil {
		return StaffEnrolment{}, Member{}, err
	}
	if e.UsedAt != nil || !s.now().Before(e.ExpiresAt) {
		return StaffEnrolment{}, Member{}, errEnrolment
	}
	m, err := tx.Member(ctx, e.StaffID, true)
	if err != nil {
		return StaffEnrolment{}, Member{}, err
	}
	if m.DisabledAt != nil {
		return StaffEnrolment{}, Member{}, errEnrolment
	}
	return e, m, nil
}

// StartEnrolment gives the member of a live enrolment link a new TOTP
// secret (replacing one from an earlier start). The link stays usable
// until FinishEnrolment.
func (s *Staff) StartEnrolment(ctx context.Context, token string) (EnrolmentStart, error) {
	var out EnrolmentStart
	err := s.store.Atomic(ctx, func(tx Tx) error {
		_, m, err := s.enrolment(ctx, tx, token)
		if err != nil {
			return err
		}
		key, err := totp.Generate(totp.GenerateOpts{Issuer: TOTPIssuer + " operations", AccountName: m.Email})
		if err != nil {
			return apperr.Internal(err)
		}
		m.TOTPSecret, m.TOTPLastStep = s.sealer.Seal([]byte(key.Secret()), []byte(m.ID)), 0
		out = EnrolmentStart{Member: m, Secret: key.Secret(), URL: key.URL()}
		return tx.UpdateMember(ctx, m)
	})
	return out, err
}

// FinishEnrolment checks a code of the secret StartEnrolment gave, sets
// the password, uses the link up and signs the member in.
func (s *Staff) FinishEnrolment(ctx context.Context, token, password, code, clientIP string) (StaffLogin, error) {
	if err := validatePassword(password); err != nil {
		return StaffLogin{}, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.opt.Cost)
	if err != nil {
		return StaffLogin{}, apperr.Internal(err)
	}
	var login StaffLogin
	err = s.store.Atomic(ctx, func(tx Tx) error {
		e, m, err := s.enrolment(ctx, tx, token)
		if err != nil {
			return err
		}
		if m.TOTPSecret == nil {
			return apperr.Validation(apperr.Detail{Field: "code", Message: "start the enrolment first: no authenticator secret was issued"})
		}
		step, err := verifyCode(s.sealer, s.now(), m.TOTPSecret, m.ID, m.TOTPLastStep, code)
		if apperr.IsCode(err, CodeInvalidOTP) {
			return errBadCode
		} else if err != nil {
			return err
		}
		m.PasswordHash, m.TOTPLastStep = hash, step
		if err := tx.UpdateMember(ctx, m); err != nil {
			return err
		}
		if err := tx.UseStaffEnrolment(ctx, e.Hash, s.now().UTC()); err != nil {
			return err
		}
		actx := asMember(ctx, m, clientIP)
		if err := tx.Audit(actx, "staff.enrol", m.ID, "", nil); err != nil {
			return err
		}
		login, err = s.startSession(actx, tx, m)
		return err
	})
	return login, err
}

// asMember is ctx with m as the staff principal, for auditing what a
// member does before the gateway can vouch for a session (enrolment,
// sign-in and sign-out are edge routes).
func asMember(ctx context.Context, m Member, clientIP string) context.Context {
	id := m.ID
	if id == "" {
		id = "unknown" // a sign-in attempt with an email no member has
	}
	return principal.With(ctx, principal.Principal{Kind: principal.KindStaff, StaffID: id, StaffName: m.Name, Role: m.Role, ClientIP: clientIP})
}

// SignIn checks email, password and TOTP code (all three, always). The
// attempt is counted before anything is compared, like the dashboard's;
// success and failure are both audited, a failure with the email tried.
func (s *Staff) SignIn(ctx context.Context, email, password, code, clientIP string) (StaffLogin, error) {
	em, _ := NormalizeEmail(email)
	if wait, err := s.throttle.Reserve(ctx, em, clientIP); err != nil {
		return StaffLogin{}, err
	} else if wait > 0 {
		return StaffLogin{}, apperr.New(apperr.KindRateLimited, CodeTooManyAttempts, "Too many failed sign-in attempts; try again later").
			WithHeader("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
	}
	var login StaffLogin
	var tried Member
	err := s.store.Atomic(ctx, func(tx Tx) error {
		m, err := tx.MemberByEmail(ctx, em)
		if err != nil && !apperr.IsCode(err, apperr.CodeNotFound) {
			return err
		}
		tried = m
		hash := m.PasswordHash
		if hash == nil {
			hash = s.dummyHash // same work whether or not the member exists or enrolled
		}
		if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil || !m.Enrolled() || m.DisabledAt != nil {
			return ErrInvalidCredentials
		}
		step, err := verifyCode(s.sealer, s.now(), m.TOTPSecret, m.ID, m.TOTPLastStep, code)
		if err != nil {
			return err
		}
		m.TOTPLastStep = step
		if err := tx.UpdateMember(ctx, m); err != nil {
			return err
		}
		actx := asMember(ctx, m, clientIP)
		if err := tx.Audit(actx, "staff.sign_in", m.ID, "", nil); err != nil {
			return err
		}
		login, err = s.startSession(actx, tx, m)
		return err
	})
	if err == nil {
		_ = s.throttle.Succeeded(ctx, em, clientIP)
		return login, nil
	}
	if apperr.IsCode(err, CodeInvalidCredentials) || apperr.IsCode(err, CodeInvalidOTP) {
		s.auditFailure(ctx, tried, email, clientIP, err)
	}
	return StaffLogin{}, err
}

// auditFailure records a failed sign-in in a transaction of its own (the
// attempt's was rolled back). A failure to record it is not the caller's
// problem: the answer stays 401.
func (s *Staff) auditFailure(ctx context.Context, m Member, email, clientIP string, cause error) {
	reason := "password"
	if apperr.IsCode(cause, CodeInvalidOTP) {
		reason = "code"
	}
	if len(email) > 254 {
		email = email[:254]
	}
	_ = s.store.Atomic(ctx, func(tx Tx) error {
		return tx.Audit(asMember(ctx, m, clientIP), "staff.sign_in_failed", m.ID, "", map[string]any{"email": email, "reason": reason})
	})
}

func (s *Staff) startSession(ctx context.Context, tx Tx, m Member) (StaffLogin, error) {
	token, csrf := randomToken(), randomToken()
	now := s.now().UTC()
	ss := StaffSession{Hash: hashToken(token), StaffID: m.ID, CSRFToken: csrf, CreatedAt: now, ExpiresAt: now.Add(s.opt.SessionTTL)}
	if err := tx.InsertStaffSession(ctx, ss); err != nil {
		return StaffLogin{}, err
	}
	return StaffLogin{Token: token, Member: m, CSRF: csrf, Expires: ss.ExpiresAt}, nil
}

// Authenticate returns the live session of a cookie token and its
// member: unknown, expired, or the member disabled is ErrStaffSession.
func (s *Staff) Authenticate(ctx context.Context, token string) (StaffSession, Member, error) {
	if token == "" {
		return StaffSession{}, Member{}, ErrStaffSession
	}
	var ss StaffSession
	var m Member
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		if ss, err = tx.StaffSessionByHash(ctx, hashToken(token)); err != nil {
			return err
		}
		m, err = tx.Member(ctx, ss.StaffID, false)
		return err
	})
	if apperr.IsCode(err, apperr.CodeNotFound) || (err == nil && (!s.now().Before(ss.ExpiresAt) || m.DisabledAt != nil)) {
		return StaffSession{}, Member{}, ErrStaffSession
	}
	return ss, m, err
}

// Resolve is the gateway's check of a console request: a live session
// and its CSRF token.
func (s *Staff) Resolve(ctx context.Context, token, csrf string) (Member, error) {
	ss, m, err := s.Authenticate(ctx, token)
	if err != nil {
		return Member{}, err
	}
	if err := (Session{CSRFToken: ss.CSRFToken}).CheckCSRF(csrf); err != nil {
		return Member{}, err
	}
	return m, nil
}

// SignOut ends the session of token, audited.
func (s *Staff) SignOut(ctx context.Context, token, clientIP string) error {
	ss, m, err := s.Authenticate(ctx, token)
	if err != nil {
		return err
	}
	return s.store.Atomic(ctx, func(tx Tx) error {
		if err := tx.DeleteStaffSession(ctx, ss.Hash); err != nil {
			return err
		}
		return tx.Audit(asMember(ctx, m, clientIP), "staff.sign_out", m.ID, "", nil)
	})
}

// Member returns a member by id.
func (s *Staff) Member(ctx context.Context, id string) (Member, error) {
	if !ids.Valid("stf", id) {
		return Member{}, apperr.NotFound("Staff member")
	}
	var m Member
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		m, err = tx.Member(ctx, id, false)
		return err
	})
	return m, err
}

// List returns every member, oldest first.
func (s *Staff) List(ctx context.Context) ([]Member, error) {
	var out []Member
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		out, err = tx.Members(ctx)
		return err
	})
	return out, err
}

// SetDisabled disables a member (ending every session of theirs in the
// same transaction, so their next request is refused) or enables them
// again, audited. An admin cannot disable themselves: the last admin
// would lock everyone out.
func (s *Staff) SetDisabled(ctx context.Context, id string, disabled bool) (Member, error) {
	if !ids.Valid("stf", id) {
		return Member{}, apperr.NotFound("Staff member")
	}
	if p, ok := principal.From(ctx); ok && disabled && p.Kind == principal.KindStaff && p.StaffID == id {
		return Member{}, errDisableSelf
	}
	var m Member
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		if m, err = tx.Member(ctx, id, true); err != nil {
			return err
		}
		if (m.DisabledAt != nil) == disabled {
			return nil // already so: nothing to change or audit
		}
		action := "staff.enable"
		m.DisabledAt = nil
		if disabled {
			action = "staff.disable"
			now := s.now().UTC()
			m.DisabledAt = &now
			if err := tx.DeleteStaffSessions(ctx, m.ID); err != nil {
				return err
			}
		}
		if err := tx.UpdateMember(ctx, m); err != nil {
			return err
		}
		return tx.Audit(ctx, action, m.ID, "", map[string]any{"email": m.Email})
	})
	return m, err
}
