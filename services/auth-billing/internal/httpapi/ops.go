package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

// OpsOptions configure the operations console's transport.
type OpsOptions struct {
	// SecureCookies sets the Secure flag (off only for local http runs).
	SecureCookies bool
	// PublicURL is the gateway as people reach it; enrolment links point
	// at its /ops/ page.
	PublicURL string
}

// RegisterOps mounts the staff side of /ops/v1, the gateway's staff
// session check and the operators' /admin/v1 staff and review-policy
// routes.
//
// Enrolment, sign-in and the session itself (GET and DELETE
// /ops/v1/session) are edge routes: the service reads the kyc_staff cookie
// and sets it, as the dashboard's log-in does (the gateway strips cookies
// from staff routes). Every other route takes the staff principal the
// gateway made from a live session and its CSRF token.
func RegisterOps(mux *http.ServeMux, st *account.Staff, acc *account.Service, adminToken string, protect Protector, opt OpsOptions, log *slog.Logger) {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		envelope.Fail(r.Context(), w, log, apperr.New(apperr.KindForbidden, account.CodeCrossOrigin,
			"Cross-origin browser requests to the operations API are refused"))
	}))
	edge := func(h http.Handler) http.Handler { return protect(cop.Handler(h), principal.KindEdge) }
	staff := func(h http.Handler, roles ...principal.Role) http.Handler {
		if len(roles) == 0 {
			roles = principal.Roles
		}
		return protect(principal.RequireRole(log, roles...)(h), principal.KindStaff)
	}
	admin := func(h http.Handler) http.Handler { return kitserver.RequireAdmin(adminToken, log, h) }
	links := enrolLinks{base: opt.PublicURL}

	mux.Handle("POST /ops/v1/enrolment/start", edge(kitserver.NewHandler(enrolStartEndpoint(st), decodeEnrolToken, log)))
	mux.Handle("POST /ops/v1/enrolment/finish", edge(kitserver.NewHandler(enrolFinishEndpoint(st, opt), decodeEnrolFinish, log)))
	mux.Handle("POST /ops/v1/session", edge(kitserver.NewHandler(staffSignInEndpoint(st, opt), decodeStaffSignIn, log)))
	mux.Handle("GET /ops/v1/session", edge(kitserver.NewHandler(staffSessionEndpoint(st), decodeStaffCookie, log)))
	mux.Handle("DELETE /ops/v1/session", edge(kitserver.NewHandler(staffSignOutEndpoint(st, opt), decodeStaffCookie, log)))

	mux.Handle("GET /ops/v1/me", staff(kitserver.NewHandler(staffMeEndpoint(st), decodeNothing, log)))
	mux.Handle("GET /ops/v1/staff", staff(kitserver.NewHandler(listStaffEndpoint(st), decodeNothing, log), principal.RoleAdmin))
	mux.Handle("POST /ops/v1/staff", staff(kitserver.NewHandler(createStaffEndpoint(st, links), decodeCreateStaff, log), principal.RoleAdmin))
	mux.Handle("POST /ops/v1/staff/{id}/disable", staff(kitserver.NewHandler(setDisabledEndpoint(st, true), decodeStaffID, log), principal.RoleAdmin))
	mux.Handle("POST /ops/v1/staff/{id}/enable", staff(kitserver.NewHandler(setDisabledEndpoint(st, false), decodeStaffID, log), principal.RoleAdmin))
	mux.Handle("GET /ops/v1/audit", staff(kitserver.NewHandler(auditEndpoint(st), decodeAudit, log), principal.RoleAdmin))
	mux.Handle("GET /ops/v1/orgs", staff(kitserver.NewHandler(listOrgsEndpoint(acc), decodeListOrgs, log)))
	mux.Handle("PATCH /ops/v1/orgs/{id}", staff(kitserver.NewHandler(orgSettingsEndpoint(acc), decodeOrgSettings, log), principal.RoleAdmin))

	mux.Handle("POST "+principal.StaffResolvePath, protect(kitserver.NewHandler(resolveStaffEndpoint(st), decodeResolveSession, log), principal.KindGateway))

	mux.Handle("POST /admin/v1/staff", admin(kitserver.NewHandler(createStaffEndpoint(st, links), decodeCreateStaff, log)))
	mux.Handle("PUT /admin/v1/orgs/{id}/review-policy", admin(kitserver.NewHandler(orgSettingsEndpoint(acc), decodeReviewPolicy, log)))
}

// enrolLinks makes the one-time link a new member opens. The token is in
// the fragment, which browsers never send: it reaches no server log.
type enrolLinks struct{ base string }

func (l enrolLinks) of(token string) string { return l.base + "/ops/#enrol=" + urlEscape(token) }

func urlEscape(token string) string { return url.QueryEscape(token) }

type enrolTokenRequest struct {
	Token string `json:"token" required:"is required: the enrolment link's token"`
}
type enrolFinishRequest struct {
	Token    string `json:"token" required:"is required: the enrolment link's token"`
	Password string `json:"password" required:"is required"`
	Code     string `json:"code" required:"is required: the 6-digit code your authenticator app shows"`
	ClientIP string `json:"-"`
}
type staffSignInRequest struct {
	Email    string `json:"email" required:"is required"`
	Password string `json:"password" required:"is required"`
	Code     string `json:"code" required:"is required: the 6-digit code your authenticator app shows"`
	ClientIP string `json:"-"`
}
type staffCookieRequest struct {
	Token, CSRF, ClientIP string
}
type createStaffRequest struct {
	Email string `json:"email"`
	Name  string `json:"name"`
	Role  string `json:"role"`
}
type staffIDRequest struct{ ID string }
type orgSettingsRequest struct {
	OrgID        string                 `json:"-"`
	ReviewPolicy optional.Field[string] `json:"reviewPolicy"`
	SLAHours     optional.Field[int]    `json:"slaHours"`
}
type listOrgsRequest struct {
	After string
	Limit int
}

func clientIP(ctx context.Context) string {
	p, _ := principal.From(ctx)
	return p.ClientIP
}

func decodeNothing(context.Context, *http.Request) (struct{}, error) { return struct{}{}, nil }

func decodeEnrolToken(_ context.Context, r *http.Request) (enrolTokenRequest, error) {
	var req enrolTokenRequest
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

func decodeEnrolFinish(ctx context.Context, r *http.Request) (enrolFinishRequest, error) {
	req := enrolFinishRequest{ClientIP: clientIP(ctx)}
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

func decodeStaffSignIn(ctx context.Context, r *http.Request) (staffSignInRequest, error) {
	req := staffSignInRequest{ClientIP: clientIP(ctx)}
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

func decodeStaffCookie(ctx context.Context, r *http.Request) (staffCookieRequest, error) {
	req := staffCookieRequest{CSRF: r.Header.Get(CSRFHeader), ClientIP: clientIP(ctx)}
	if c, err := r.Cookie(principal.StaffCookie); err == nil {
		req.Token = c.Value
	}
	return req, nil
}

func decodeCreateStaff(_ context.Context, r *http.Request) (createStaffRequest, error) {
	var req createStaffRequest
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

func decodeStaffID(_ context.Context, r *http.Request) (staffIDRequest, error) {
	return staffIDRequest{ID: r.PathValue("id")}, nil
}

func decodeOrgSettings(_ context.Context, r *http.Request) (orgSettingsRequest, error) {
	req := orgSettingsRequest{OrgID: r.PathValue("id")}
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

// decodeReviewPolicy is the admin token's twin of PATCH: reviewPolicy is
// required there, slaHours optional.
func decodeReviewPolicy(ctx context.Context, r *http.Request) (orgSettingsRequest, error) {
	req, err := decodeOrgSettings(ctx, r)
	if err == nil && !req.ReviewPolicy.Has() {
		err = apperr.Validation(apperr.Detail{Field: "reviewPolicy", Message: "is required: NONE, FLAGGED or ALL"})
	}
	return req, err
}

// decodeListOrgs reads limit (1-200, default 100) and cursor (the last id
// of the previous page).
func decodeListOrgs(_ context.Context, r *http.Request) (listOrgsRequest, error) {
	q := r.URL.Query()
	req := listOrgsRequest{After: q.Get("cursor"), Limit: 100}
	if req.After != "" && !ids.Valid("org", req.After) {
		return req, apperr.Validation(apperr.Detail{Field: "cursor", Message: "is not a cursor this endpoint returned"})
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > account.MaxOrgPage {
			return req, apperr.Validation(apperr.Detail{Field: "limit", Message: "must be a whole number from 1 to 200"})
		}
		req.Limit = n
	}
	return req, nil
}

// decodeAudit reads the audit log's filters, every problem at once.
func decodeAudit(_ context.Context, r *http.Request) (account.AuditFilter, error) {
	q := r.URL.Query()
	f := account.AuditFilter{ActorID: q.Get("actorId"), Action: q.Get("action"), OrgID: q.Get("orgId")}
	var details []apperr.Detail
	bad := func(field, msg string) { details = append(details, apperr.Detail{Field: field, Message: msg}) }
	if len(f.ActorID) > 100 {
		bad("actorId", "must be at most 100 characters")
	}
	if len(f.Action) > 100 {
		bad("action", "must be at most 100 characters")
	}
	if f.OrgID != "" && !ids.Valid("org", f.OrgID) {
		bad("orgId", "must be an organization id (org_...)")
	}
	f.Since, f.Until, f.Limit, f.After = decodeAuditPage(q, "since", "until", bad)
	if len(details) > 0 {
		return f, apperr.Validation(details...)
	}
	return f, nil
}

// staffCookie is the console's session cookie: HttpOnly, SameSite=Strict
// (a link from another site never carries it) and only under /ops.
func staffCookie(token string, expires time.Time, opt OpsOptions) *http.Cookie {
	c := &http.Cookie{Name: principal.StaffCookie, Value: token, Path: principal.StaffCookiePath, HttpOnly: true,
		Secure: opt.SecureCookies, SameSite: http.SameSiteStrictMode, Expires: expires}
	if token == "" {
		c.MaxAge = -1
	}
	return c
}

func signedIn(l account.StaffLogin, opt OpsOptions, status int, msg string) kitserver.Result {
	return kitserver.Result{Status: status, Message: msg, Data: viewStaffSession(l.Member, l.CSRF, l.Expires),
		Cookies: []*http.Cookie{staffCookie(l.Token, l.Expires, opt)}}
}

func enrolStartEndpoint(st *account.Staff) kitserver.Endpoint[enrolTokenRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r enrolTokenRequest) (kitserver.Result, error) {
		e, err := st.StartEnrolment(ctx, r.Token)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Add this secret to your authenticator app, then choose a password and enter a code",
			Data: enrolStartView{Email: e.Member.Email, Name: e.Member.Name, Role: string(e.Member.Role), TOTPSecret: e.Secret, OTPAuthURI: e.URL}}, nil
	})
}

func enrolFinishEndpoint(st *account.Staff, opt OpsOptions) kitserver.Endpoint[enrolFinishRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r enrolFinishRequest) (kitserver.Result, error) {
		l, err := st.FinishEnrolment(ctx, r.Token, r.Password, r.Code, r.ClientIP)
		if err != nil {
			return kitserver.Result{}, err
		}
		return signedIn(l, opt, http.StatusOK, "Enrolled and signed in"), nil
	})
}

func staffSignInEndpoint(st *account.Staff, opt OpsOptions) kitserver.Endpoint[staffSignInRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r staffSignInRequest) (kitserver.Result, error) {
		l, err := st.SignIn(ctx, r.Email, r.Password, r.Code, r.ClientIP)
		if err != nil {
			return kitserver.Result{}, err
		}
		return signedIn(l, opt, http.StatusOK, "Signed in"), nil
	})
}

// staffSessionEndpoint lets a reloaded console page find its session and
// CSRF token again (a GET: the cookie alone, SameSite=Strict, suffices).
func staffSessionEndpoint(st *account.Staff) kitserver.Endpoint[staffCookieRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r staffCookieRequest) (kitserver.Result, error) {
		ss, m, err := st.Authenticate(ctx, r.Token)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Session retrieved", Data: viewStaffSession(m, ss.CSRFToken, ss.ExpiresAt)}, nil
	})
}

// staffSignOutEndpoint ends the session; it changes state, so it needs
// the session's CSRF token like every staff call.
func staffSignOutEndpoint(st *account.Staff, opt OpsOptions) kitserver.Endpoint[staffCookieRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r staffCookieRequest) (kitserver.Result, error) {
		if _, err := st.Resolve(ctx, r.Token, r.CSRF); err != nil {
			return kitserver.Result{}, err
		}
		if err := st.SignOut(ctx, r.Token, r.ClientIP); err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Signed out", Data: signedOutView{SignedOut: true},
			Cookies: []*http.Cookie{staffCookie("", time.Unix(0, 0), opt)}}, nil
	})
}

func resolveStaffEndpoint(st *account.Staff) kitserver.Endpoint[resolveSessionRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r resolveSessionRequest) (kitserver.Result, error) {
		m, err := st.Resolve(ctx, r.Token, r.CSRF)
		return kitserver.Result{Message: "Staff session resolved", Data: resolvedStaffView{Staff: m.State()}}, err
	})
}

func staffMeEndpoint(st *account.Staff) kitserver.Endpoint[struct{}] {
	return kitserver.NewEndpoint(func(ctx context.Context, _ struct{}) (kitserver.Result, error) {
		p, _ := principal.From(ctx)
		m, err := st.Member(ctx, p.StaffID)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Staff member retrieved", Data: resolvedStaffView{Staff: m.State()}}, nil
	})
}

func listStaffEndpoint(st *account.Staff) kitserver.Endpoint[struct{}] {
	return kitserver.NewEndpoint(func(ctx context.Context, _ struct{}) (kitserver.Result, error) {
		ms, err := st.List(ctx)
		if err != nil {
			return kitserver.Result{}, err
		}
		v := staffListView{Staff: make([]staffView, len(ms))}
		for i, m := range ms {
			v.Staff[i] = viewStaff(m)
		}
		return kitserver.Result{Message: "Staff listed", Data: v}, nil
	})
}

func createStaffEndpoint(st *account.Staff, links enrolLinks) kitserver.Endpoint[createStaffRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r createStaffRequest) (kitserver.Result, error) {
		nm, err := st.Create(ctx, r.Email, r.Name, principal.Role(r.Role))
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Status: http.StatusCreated, Message: "Staff member created; send them the enrolment link, which works once",
			Data: newStaffView{Staff: viewStaff(nm.Member), EnrolURL: links.of(nm.EnrolToken), EnrolExpiresAt: envelope.Timestamp(nm.EnrolExpires)}}, nil
	})
}

func setDisabledEndpoint(st *account.Staff, disabled bool) kitserver.Endpoint[staffIDRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r staffIDRequest) (kitserver.Result, error) {
		m, err := st.SetDisabled(ctx, r.ID, disabled)
		if err != nil {
			return kitserver.Result{}, err
		}
		msg := "Staff member enabled"
		if disabled {
			msg = "Staff member disabled; their sessions have ended"
		}
		return kitserver.Result{Message: msg, Data: viewStaff(m)}, nil
	})
}

func auditEndpoint(st *account.Staff) kitserver.Endpoint[account.AuditFilter] {
	return kitserver.NewEndpoint(func(ctx context.Context, f account.AuditFilter) (kitserver.Result, error) {
		es, next, err := st.AuditLog(ctx, f)
		if err != nil {
			return kitserver.Result{}, err
		}
		v := auditListView{Entries: make([]auditView, len(es)), NextCursor: nullIfEmpty(next)}
		for i, e := range es {
			v.Entries[i] = viewAudit(e)
		}
		return kitserver.Result{Message: "Audit log retrieved", Data: v}, nil
	})
}

func listOrgsEndpoint(acc *account.Service) kitserver.Endpoint[listOrgsRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r listOrgsRequest) (kitserver.Result, error) {
		os, err := acc.Orgs(ctx, r.After, r.Limit+1)
		if err != nil {
			return kitserver.Result{}, err
		}
		var next *string
		if len(os) > r.Limit {
			os = os[:r.Limit]
			next = &os[r.Limit-1].ID
		}
		v := opsOrgListView{Organizations: make([]opsOrgView, len(os)), NextCursor: next}
		for i, o := range os {
			v.Organizations[i] = viewOpsOrg(o)
		}
		return kitserver.Result{Message: "Organizations listed", Data: v}, nil
	})
}

func orgSettingsEndpoint(acc *account.Service) kitserver.Endpoint[orgSettingsRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r orgSettingsRequest) (kitserver.Result, error) {
		var set account.Settings
		if r.ReviewPolicy.Set {
			set.ReviewPolicy = &r.ReviewPolicy.V
		}
		if r.SLAHours.Set {
			set.SLAHours = &r.SLAHours.V
		}
		o, err := acc.ChangeSettings(ctx, r.OrgID, set)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Organization settings saved", Data: viewOpsOrg(o)}, nil
	})
}

// The views of the console's API (schemas Staff*, AuditEntry, OpsOrganization).

type staffStateView = principal.StaffState

type resolvedStaffView struct {
	Staff staffStateView `json:"staff"`
}

type staffSessionView struct {
	Staff     staffStateView `json:"staff"`
	CSRFToken string         `json:"csrfToken"`
	ExpiresAt *string        `json:"expiresAt"`
}

func viewStaffSession(m account.Member, csrf string, expires time.Time) staffSessionView {
	return staffSessionView{Staff: m.State(), CSRFToken: csrf, ExpiresAt: envelope.Timestamp(expires)}
}

type signedOutView struct {
	SignedOut bool `json:"signedOut"`
}

type enrolStartView struct {
	Email      string `json:"email"`
	Name       string `json:"name"`
	Role       string `json:"role"`
	TOTPSecret string `json:"totpSecret"`
	OTPAuthURI string `json:"otpauthUri"`
}

// staffView is a member as admins see them: status is invited (enrolment
// not finished), active or disabled.
type staffView struct {
	ID         string  `json:"id"`
	Email      string  `json:"email"`
	Name       string  `json:"name"`
	Role       string  `json:"role"`
	Status     string  `json:"status"`
	CreatedAt  *string `json:"createdAt"`
	DisabledAt *string `json:"disabledAt"`
}

func viewStaff(m account.Member) staffView {
	status := "active"
	switch {
	case m.DisabledAt != nil:
		status = "disabled"
	case !m.Enrolled():
		status = "invited"
	}
	return staffView{ID: m.ID, Email: m.Email, Name: m.Name, Role: string(m.Role), Status: status,
		CreatedAt: envelope.Timestamp(m.CreatedAt), DisabledAt: tsPtr(m.DisabledAt)}
}

type staffListView struct {
	Staff []staffView `json:"staff"`
}

type newStaffView struct {
	Staff          staffView `json:"staff"`
	EnrolURL       string    `json:"enrolUrl"`
	EnrolExpiresAt *string   `json:"enrolExpiresAt"`
}

type auditView struct {
	ID        string         `json:"id"`
	ActorID   string         `json:"actorId"`
	ActorName string         `json:"actorName"`
	Role      *string        `json:"role"`
	Action    string         `json:"action"`
	Target    *string        `json:"target"`
	OrgID     *string        `json:"orgId"`
	Details   map[string]any `json:"details"`
	IP        *string        `json:"ip"`
	At        *string        `json:"at"`
}

func viewAudit(e account.AuditEntry) auditView {
	d := e.Details
	if d == nil {
		d = map[string]any{}
	}
	return auditView{ID: e.ID, ActorID: e.ActorID, ActorName: e.ActorName, Role: nullIfEmpty(e.Role), Action: e.Action,
		Target: nullIfEmpty(e.Target), OrgID: nullIfEmpty(e.OrgID), Details: d, IP: nullIfEmpty(e.IP), At: envelope.Timestamp(e.At)}
}

type auditListView struct {
	Entries    []auditView `json:"entries"`
	NextCursor *string     `json:"nextCursor"`
}

type opsOrgView struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	Plan         string  `json:"plan"`
	ReviewPolicy string  `json:"reviewPolicy"`
	SLAHours     int     `json:"slaHours"`
	UpdatedAt    *string `json:"updatedAt"`
}

func viewOpsOrg(o account.Org) opsOrgView {
	s := account.StateOf(o)
	return opsOrgView{ID: o.ID, Name: o.Name, Plan: o.Plan, ReviewPolicy: s.ReviewPolicy, SLAHours: s.SLAHours, UpdatedAt: envelope.Timestamp(o.UpdatedAt)}
}

type opsOrgListView struct {
	Organizations []opsOrgView `json:"organizations"`
	NextCursor    *string      `json:"nextCursor"`
}

// decodeAuditPage reads what both audit logs (the staff's and an
// organization's) page by: a time window under the names from and to,
// limit and cursor, reporting each problem to bad.
func decodeAuditPage(q url.Values, from, to string, bad func(field, msg string)) (since, until *time.Time, limit int, after *account.AuditCursor) {
	for _, p := range []struct {
		name string
		into **time.Time
	}{{from, &since}, {to, &until}} {
		if s := q.Get(p.name); s != "" {
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				bad(p.name, "must be an RFC 3339 time such as 2026-11-26T09:00:00Z")
				continue
			}
			*p.into = &t
		}
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > account.MaxAuditPage {
			bad("limit", "must be a whole number from 1 to 200")
		}
		limit = n
	}
	if s := q.Get("cursor"); s != "" {
		c, err := account.DecodeAuditCursor(s)
		if err != nil {
			bad("cursor", "is not a cursor this endpoint returned")
		}
		after = &c
	}
	return since, until, limit, after
}
