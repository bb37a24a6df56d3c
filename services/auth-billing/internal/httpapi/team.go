package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
)

type wrap = func(http.Handler) http.Handler
type roleWrap = func(principal.MemberRole, string, http.Handler) http.Handler

// registerTeam mounts the team routes: members and invitations (session
// routes, role-checked) and the two invitation routes a person without
// an account calls from the link (edge routes, throttled like log-in).
func registerTeam(mux *http.ServeMux, d *account.Dashboard, edge, authed wrap, role roleWrap, opt DashboardOptions, log *slog.Logger) {
	links := enrolLinks{base: opt.PublicURL}
	admin := principal.MemberAdmin
	mux.Handle("GET /dashboard/v1/members", authed(kitserver.NewHandler(membersEndpoint(d), decodeCookie, log)))
	mux.Handle("PATCH /dashboard/v1/members/{id}", role(admin, "member.role_change", kitserver.NewHandler(changeRoleEndpoint(d), decodeMemberRole, log)))
	mux.Handle("DELETE /dashboard/v1/members/{id}", role(admin, "member.remove", kitserver.NewHandler(removeMemberEndpoint(d), decodePathID, log)))
	mux.Handle("POST /dashboard/v1/invitations", role(admin, "member.invite", kitserver.NewHandler(inviteEndpoint(d, links), decodeInvite, log)))
	mux.Handle("DELETE /dashboard/v1/invitations/{id}", role(admin, "member.invite_revoke", kitserver.NewHandler(revokeInvitationEndpoint(d), decodePathID, log)))
	mux.Handle("POST /dashboard/v1/invitations/lookup", edge(kitserver.NewHandler(lookupInvitationEndpoint(d), decodeInvitationToken, log)))
	mux.Handle("POST /dashboard/v1/invitations/accept", edge(kitserver.NewHandler(acceptInvitationEndpoint(d, opt), decodeAcceptInvitation, log)))
	mux.Handle("GET /dashboard/v1/audit", role(admin, "audit.read", kitserver.NewHandler(orgAuditEndpoint(d), decodeOrgAudit, log)))
}

// invite is the link an invited person opens. Like the staff enrolment
// link, the token is in the fragment, which browsers never send: it
// reaches no server log.
func (l enrolLinks) invite(token string) string {
	return l.base + "/dashboard/#invite=" + urlEscape(token)
}

func actorOf(ctx context.Context) account.Actor {
	a, _ := account.ActorFrom(ctx)
	return a
}

type inviteRequest struct {
	Email string `json:"email"`
	Role  string `json:"role"`
}
type pathIDRequest struct{ ID string }
type memberRoleRequest struct {
	ID   string `json:"-"`
	Role string `json:"role" required:"is required: owner, admin, developer or viewer"`
}
type invitationTokenRequest struct {
	Token    string `json:"token" required:"is required: the invitation link's token"`
	ClientIP string `json:"-"`
}
type acceptInvitationRequest struct {
	Token    string `json:"token" required:"is required: the invitation link's token"`
	Name     string `json:"name"`
	Password string `json:"password"`
	ClientIP string `json:"-"`
}

func decodeInvite(_ context.Context, r *http.Request) (inviteRequest, error) {
	var req inviteRequest
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

func decodePathID(_ context.Context, r *http.Request) (pathIDRequest, error) {
	return pathIDRequest{ID: r.PathValue("id")}, nil
}

func decodeMemberRole(_ context.Context, r *http.Request) (memberRoleRequest, error) {
	req := memberRoleRequest{ID: r.PathValue("id")}
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

func decodeInvitationToken(ctx context.Context, r *http.Request) (invitationTokenRequest, error) {
	req := invitationTokenRequest{ClientIP: clientIP(ctx)}
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

func decodeAcceptInvitation(ctx context.Context, r *http.Request) (acceptInvitationRequest, error) {
	req := acceptInvitationRequest{ClientIP: clientIP(ctx)}
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

// decodeOrgAudit reads the organization audit log's filters, every
// problem at once.
func decodeOrgAudit(_ context.Context, r *http.Request) (account.OrgAuditFilter, error) {
	q := r.URL.Query()
	f := account.OrgAuditFilter{ActorID: q.Get("actor"), Action: q.Get("action"), Outcome: q.Get("outcome"), Env: q.Get("environment")}
	var details []apperr.Detail
	bad := func(field, msg string) { details = append(details, apperr.Detail{Field: field, Message: msg}) }
	if len(f.ActorID) > 100 {
		bad("actor", "must be at most 100 characters")
	}
	if len(f.Action) > 100 {
		bad("action", "must be at most 100 characters")
	}
	if f.Outcome != "" && f.Outcome != orgaudit.Done && f.Outcome != orgaudit.Refused {
		bad("outcome", "must be done or refused")
	}
	if f.Env != "" && !principal.Env(f.Env).Valid() {
		bad("environment", "must be test or live")
	}
	f.Since, f.Until, f.Limit, f.After = decodeAuditPage(q, "from", "to", bad)
	if len(details) > 0 {
		return f, apperr.Validation(details...)
	}
	return f, nil
}

func membersEndpoint(d *account.Dashboard) kitserver.Endpoint[cookieRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, _ cookieRequest) (kitserver.Result, error) {
		us, invs, err := d.Members(ctx, actorOf(ctx))
		if err != nil {
			return kitserver.Result{}, err
		}
		v := membersView{Members: make([]memberView, len(us)), Invitations: make([]invitationView, len(invs))}
		for i, u := range us {
			v.Members[i] = viewMember(u)
		}
		for i, inv := range invs {
			v.Invitations[i] = viewInvitation(inv)
		}
		return kitserver.Result{Message: "Members listed", Data: v}, nil
	})
}

func inviteEndpoint(d *account.Dashboard, links enrolLinks) kitserver.Endpoint[inviteRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r inviteRequest) (kitserver.Result, error) {
		ni, err := d.Invite(ctx, actorOf(ctx), r.Email, principal.MemberRole(r.Role))
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Status: http.StatusCreated, Message: "Invitation created; copy the link now, it is not shown again",
			Data: newInvitationView{Invitation: viewInvitation(ni.Invitation), Link: links.invite(ni.Token)}}, nil
	})
}

func revokeInvitationEndpoint(d *account.Dashboard) kitserver.Endpoint[pathIDRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r pathIDRequest) (kitserver.Result, error) {
		inv, err := d.RevokeInvitation(ctx, actorOf(ctx), r.ID)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Invitation revoked", Data: invitationOnlyView{Invitation: viewInvitation(inv)}}, nil
	})
}

func lookupInvitationEndpoint(d *account.Dashboard) kitserver.Endpoint[invitationTokenRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r invitationTokenRequest) (kitserver.Result, error) {
		info, err := d.LookupInvitation(ctx, r.Token, r.ClientIP)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Invitation found",
			Data: invitationInfoView{OrganizationName: info.OrgName, Email: info.Email, Role: string(info.Role)}}, nil
	})
}

func acceptInvitationEndpoint(d *account.Dashboard, opt DashboardOptions) kitserver.Endpoint[acceptInvitationRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r acceptInvitationRequest) (kitserver.Result, error) {
		l, err := d.AcceptInvitation(ctx, r.Token, r.Name, r.Password, r.ClientIP)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Status: http.StatusCreated, Message: "Welcome to the team", Data: viewLogin(l),
			Cookies: []*http.Cookie{sessionCookie(l.Token, l.Expires, opt)}}, nil
	})
}

func changeRoleEndpoint(d *account.Dashboard) kitserver.Endpoint[memberRoleRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r memberRoleRequest) (kitserver.Result, error) {
		u, err := d.ChangeRole(ctx, actorOf(ctx), r.ID, principal.MemberRole(r.Role))
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Role changed; it applies from the member's next request", Data: memberOnlyView{Member: viewMember(u)}}, nil
	})
}

func removeMemberEndpoint(d *account.Dashboard) kitserver.Endpoint[pathIDRequest] {
	return kitserver.NewEndpoint(func(ctx context.Context, r pathIDRequest) (kitserver.Result, error) {
		u, err := d.RemoveMember(ctx, actorOf(ctx), r.ID)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Member removed; their sessions have ended", Data: memberOnlyView{Member: viewMember(u)}}, nil
	})
}

func orgAuditEndpoint(d *account.Dashboard) kitserver.Endpoint[account.OrgAuditFilter] {
	return kitserver.NewEndpoint(func(ctx context.Context, f account.OrgAuditFilter) (kitserver.Result, error) {
		es, next, err := d.OrgAuditLog(ctx, actorOf(ctx), f)
		if err != nil {
			return kitserver.Result{}, err
		}
		v := orgAuditListView{Entries: make([]orgAuditView, len(es)), NextCursor: nullIfEmpty(next)}
		for i, e := range es {
			v.Entries[i] = viewOrgAudit(e)
		}
		return kitserver.Result{Message: "Audit log retrieved", Data: v}, nil
	})
}

// The views of the team API (schemas Member, Invitation, OrgAuditEntry).

type memberView struct {
	ID        string  `json:"id"`
	Email     string  `json:"email"`
	Name      string  `json:"name"`
	Role      string  `json:"role"`
	CreatedAt *string `json:"createdAt"`
}

func viewMember(u account.User) memberView {
	return memberView{ID: u.ID, Email: u.Email, Name: u.Name, Role: string(u.Role), CreatedAt: envelope.Timestamp(u.CreatedAt)}
}

type memberOnlyView struct {
	Member memberView `json:"member"`
}

// invitationView never carries the token (nor its hash).
type invitationView struct {
	ID        string  `json:"id"`
	Email     string  `json:"email"`
	Role      string  `json:"role"`
	CreatedAt *string `json:"createdAt"`
	ExpiresAt *string `json:"expiresAt"`
}

func viewInvitation(inv account.Invitation) invitationView {
	return invitationView{ID: inv.ID, Email: inv.Email, Role: string(inv.Role),
		CreatedAt: envelope.Timestamp(inv.CreatedAt), ExpiresAt: envelope.Timestamp(inv.ExpiresAt)}
}

type invitationOnlyView struct {
	Invitation invitationView `json:"invitation"`
}

type membersView struct {
	Members     []memberView     `json:"members"`
	Invitations []invitationView `json:"invitations"`
}

type newInvitationView struct {
	Invitation invitationView `json:"invitation"`
	Link       string         `json:"link"`
}

type invitationInfoView struct {
	OrganizationName string `json:"organizationName"`
	Email            string `json:"email"`
	Role             string `json:"role"`
}

// orgActorView is who acted: a member (email and role at the time) or a
// key (its display prefix).
type orgActorView struct {
	Type      string  `json:"type"`
	ID        string  `json:"id"`
	Email     *string `json:"email,omitempty"`
	KeyPrefix *string `json:"keyPrefix,omitempty"`
	Role      *string `json:"role,omitempty"`
}

type orgAuditView struct {
	ID          string         `json:"id"`
	At          *string        `json:"at"`
	Environment *string        `json:"environment"`
	Actor       orgActorView   `json:"actor"`
	Action      string         `json:"action"`
	Target      *string        `json:"target"`
	Outcome     string         `json:"outcome"`
	IP          *string        `json:"ip"`
	Details     map[string]any `json:"details"`
}

func viewOrgAudit(e account.OrgAuditEntry) orgAuditView {
	d := e.Details
	if d == nil {
		d = map[string]any{}
	}
	actor := orgActorView{Type: e.ActorType, ID: e.ActorID}
	label := e.ActorLabel
	if e.ActorType == orgaudit.ActorKey {
		actor.KeyPrefix = &label
	} else {
		actor.Email, actor.Role = &label, nullIfEmpty(e.ActorRole)
	}
	return orgAuditView{ID: e.ID, At: envelope.Timestamp(e.At), Environment: nullIfEmpty(e.Env), Actor: actor, Action: e.Action,
		Target: nullIfEmpty(e.Target), Outcome: e.Outcome, IP: nullIfEmpty(e.IP), Details: d}
}

type orgAuditListView struct {
	Entries    []orgAuditView `json:"entries"`
	NextCursor *string        `json:"nextCursor"`
}
