package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/gazetteer"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// OpsEndpoints are the operations console's API under /ops/v1: the
// queue, coverage and agents (staff principals; changes need the
// dispatcher or admin role).
type OpsEndpoints struct {
	Queue          kitserver.Endpoint[verification.QueueFilter]
	Reassign       kitserver.Endpoint[reassignMany]
	Coverage       kitserver.Endpoint[struct{}]
	Areas          kitserver.Endpoint[struct{}]
	Agents         kitserver.Endpoint[struct{}]
	CreateAgent    kitserver.Endpoint[newAgent]
	UpdateAgent    kitserver.Endpoint[agentPatch]
	SetAgentActive kitserver.Endpoint[agentActive]
	IssueCode      kitserver.Endpoint[agentID]
}

// OpsAgent is an agent as the console shows it, with this week's
// figures.
type OpsAgent struct {
	Agent
	LastSeenAt *string `json:"lastSeenAt"`
	// Week is in the list only (GET /ops/v1/agents).
	Week *week `json:"week,omitempty"`
}

// week is an agent's figures over the visits it ended since (Monday
// 00:00 in Lagos); the shares are of Visits, null without a visit.
type week struct {
	Since               *string  `json:"since"`
	Visits              int      `json:"visits"`
	MedianSecondsOnSite *float64 `json:"medianSecondsOnSite"`
	Flagged             int      `json:"flagged"`
	Rejected            int      `json:"rejected"`
	NoAccess            int      `json:"noAccess"`
	FlaggedShare        *float64 `json:"flaggedShare"`
	RejectedShare       *float64 `json:"rejectedShare"`
	NoAccessRate        *float64 `json:"noAccessRate"`
}

func share(n, of int) *float64 {
	if of == 0 {
		return nil
	}
	v := float64(n) / float64(of)
	return &v
}

func opsAgent(a verification.FieldAgent) OpsAgent {
	out := OpsAgent{Agent: agentView(a)}
	if a.LastSeen != nil {
		out.LastSeenAt = envelope.Timestamp(*a.LastSeen)
	}
	return out
}

func weekView(w verification.AgentWeek, since time.Time) *week {
	out := &week{Since: envelope.Timestamp(since), Visits: w.Visits, Flagged: w.Flagged, Rejected: w.Rejected,
		NoAccess: w.NoAccess, FlaggedShare: share(w.Flagged, w.Visits), RejectedShare: share(w.Rejected, w.Visits),
		NoAccessRate: share(w.NoAccess, w.Visits)}
	if w.MedianOnSite != nil {
		s := w.MedianOnSite.Seconds()
		out.MedianSecondsOnSite = &s
	}
	return out
}

// agentPatch is PATCH /ops/v1/agents/{id}: members left out stay.
type agentPatch struct {
	id     string
	Name   *string   `json:"name"`
	Phone  *string   `json:"phone"`
	States *[]string `json:"states"`
	LGAs   *[]string `json:"lgas"`
}

// stateAreas is the gazetteer's states with their LGAs, for the
// console's coverage pickers.
type stateAreas struct {
	Name string   `json:"name"`
	LGAs []string `json:"lgas"`
}

func makeOpsEndpoints(svc *verification.Service, in *kitserver.Instrumenter) OpsEndpoints {
	e := OpsEndpoints{}
	e.Queue, e.Reassign, e.Coverage = queueEndpoints(svc, in)
	one := func(status int, msg string, a verification.FieldAgent, err error) (kitserver.Result, error) {
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Status: status, Message: msg, Data: opsAgent(a)}, nil
	}
	e.Areas = kitserver.NewEndpoint(func(context.Context, struct{}) (kitserver.Result, error) {
		g := gazetteer.Nigeria()
		states := g.States()
		out := make([]stateAreas, len(states))
		for i, s := range states {
			out[i] = stateAreas{Name: s, LGAs: g.LGAs(s)}
		}
		return kitserver.Result{Message: "Areas retrieved successfully", Data: map[string]any{"states": out}}, nil
	}, in.Wrap("ops_areas"))
	e.Agents = kitserver.NewEndpoint(func(ctx context.Context, _ struct{}) (kitserver.Result, error) {
		agents, since, err := svc.AgentsWithFigures(ctx)
		if err != nil {
			return kitserver.Result{}, err
		}
		out := make([]OpsAgent, len(agents))
		for i, a := range agents {
			out[i] = opsAgent(a.FieldAgent)
			out[i].Week = weekView(a.Week, since)
		}
		return kitserver.Result{Message: "Agents retrieved successfully", Data: map[string]any{"agents": out}}, nil
	}, in.Wrap("ops_list_agents"))
	e.CreateAgent = kitserver.NewEndpoint(func(ctx context.Context, req newAgent) (kitserver.Result, error) {
		a, err := svc.CreateAgent(ctx, verification.AgentInput{Name: req.Name, Phone: req.Phone, States: req.States, LGAs: req.LGAs})
		return one(http.StatusCreated, "Agent created", a, err)
	}, in.Wrap("ops_create_agent"))
	e.UpdateAgent = kitserver.NewEndpoint(func(ctx context.Context, req agentPatch) (kitserver.Result, error) {
		a, err := svc.UpdateAgent(ctx, req.id, verification.AgentPatch{Name: req.Name, Phone: req.Phone, States: req.States, LGAs: req.LGAs})
		return one(http.StatusOK, "Agent updated", a, err)
	}, in.Wrap("ops_update_agent"))
	e.SetAgentActive = kitserver.NewEndpoint(func(ctx context.Context, req agentActive) (kitserver.Result, error) {
		a, err := svc.SetAgentActive(ctx, req.id, req.active)
		return one(http.StatusOK, "Agent updated", a, err)
	}, in.Wrap("ops_set_agent_active"))
	e.IssueCode = kitserver.NewEndpoint(func(ctx context.Context, id agentID) (kitserver.Result, error) {
		code, expires, err := svc.IssueCode(ctx, string(id))
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Status: http.StatusCreated, Message: "One-time code issued; hand it to the agent (it is not shown again)",
			Data: map[string]any{"code": code, "expiresAt": envelope.Timestamp(expires)}}, nil
	}, in.Wrap("ops_issue_code"))
	return e
}

// RegisterOps mounts the console's API: every route needs a staff
// principal (the gateway's AuthStaff routes make one from a staff
// session); reads are for every role, changes for dispatchers and
// admins.
func RegisterOps(mux *http.ServeMux, e OpsEndpoints, protect func(http.Handler, ...principal.Kind) http.Handler, log *slog.Logger) {
	read := func(pattern string, h http.Handler) { mux.Handle(pattern, protect(h, principal.KindStaff)) }
	change := func(pattern string, h http.Handler) {
		mux.Handle(pattern, protect(principal.RequireRole(log, principal.RoleDispatcher, principal.RoleAdmin)(h), principal.KindStaff))
	}
	none := func(context.Context, *http.Request) (struct{}, error) { return struct{}{}, nil }
	byID := func(_ context.Context, r *http.Request) (agentID, error) { return agentID(r.PathValue("id")), nil }
	read("GET /ops/v1/queue", kitserver.NewHandler(e.Queue, decodeQueue, log))
	change("POST /ops/v1/queue/reassign", kitserver.NewHandler(e.Reassign, decodeJSON[reassignMany], log))
	read("GET /ops/v1/coverage", kitserver.NewHandler(e.Coverage, none, log))
	read("GET /ops/v1/areas", kitserver.NewHandler(e.Areas, none, log))
	read("GET /ops/v1/agents", kitserver.NewHandler(e.Agents, none, log))
	change("POST /ops/v1/agents", kitserver.NewHandler(e.CreateAgent, decodeJSON[newAgent], log))
	change("PATCH /ops/v1/agents/{id}", kitserver.NewHandler(e.UpdateAgent, func(ctx context.Context, r *http.Request) (agentPatch, error) {
		req, err := decodeJSON[agentPatch](ctx, r)
		req.id = r.PathValue("id")
		return req, err
	}, log))
	for path, active := range map[string]bool{"disable": false, "enable": true} {
		change("POST /ops/v1/agents/{id}/"+path, kitserver.NewHandler(e.SetAgentActive, func(_ context.Context, r *http.Request) (agentActive, error) {
			return agentActive{id: r.PathValue("id"), active: active}, nil
		}, log))
	}
	change("POST /ops/v1/agents/{id}/code", kitserver.NewHandler(e.IssueCode, byID, log))
}
