package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
)

// AdminEndpoints are operations' API for agents and tasks under
// /admin/v1 (kycctl agents, kycctl tasks).
type AdminEndpoints struct {
	CreateAgent    kitserver.Endpoint[newAgent]
	Agents         kitserver.Endpoint[struct{}]
	SetAgentActive kitserver.Endpoint[agentActive]
	IssueCode      kitserver.Endpoint[agentID]
	Reassign       kitserver.Endpoint[reassign]
	Evidence       kitserver.Endpoint[addressID]
}

type addressID string

// Agent is a field agent as operations see it.
type Agent struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Phone     string   `json:"phone"`
	States    []string `json:"states"`
	LGAs      []string `json:"lgas"`
	Active    bool     `json:"active"`
	OpenTasks int      `json:"openTasks"`
	CreatedAt *string  `json:"createdAt"`
}

func agentView(a verification.FieldAgent) Agent {
	if a.LGAs == nil {
		a.LGAs = []string{}
	}
	return Agent{ID: a.ID, Name: a.Name, Phone: a.Phone, States: a.States, LGAs: a.LGAs, Active: a.Active,
		OpenTasks: a.OpenTasks, CreatedAt: envelope.Timestamp(a.CreatedAt)}
}

type newAgent struct {
	Name   string   `json:"name" required:"is required"`
	Phone  string   `json:"phone" required:"is required"`
	States []string `json:"states" required:"is required: the states the agent covers"`
	LGAs   []string `json:"lgas"`
}

type agentID string

type agentActive struct {
	id     string
	active bool
}

type reassign struct {
	addressID string
	AgentID   string `json:"agentId" required:"is required"`
}

func makeAdminEndpoints(svc *verification.Service, r view.Renderer, in *kitserver.Instrumenter) AdminEndpoints {
	agent := func(status int, msg string, a verification.FieldAgent, err error) (kitserver.Result, error) {
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Status: status, Message: msg, Data: agentView(a)}, nil
	}
	return AdminEndpoints{
		CreateAgent: kitserver.NewEndpoint(func(ctx context.Context, req newAgent) (kitserver.Result, error) {
			a, err := svc.CreateAgent(ctx, verification.AgentInput{Name: req.Name, Phone: req.Phone, States: req.States, LGAs: req.LGAs})
			return agent(http.StatusCreated, "Agent created", a, err)
		}, in.Wrap("admin_create_agent")),
		Agents: kitserver.NewEndpoint(func(ctx context.Context, _ struct{}) (kitserver.Result, error) {
			agents, err := svc.Agents(ctx)
			if err != nil {
				return kitserver.Result{}, err
			}
			out := make([]Agent, len(agents))
			for i, a := range agents {
				out[i] = agentView(a)
			}
			return kitserver.Result{Message: "Agents retrieved successfully", Data: map[string]any{"agents": out}}, nil
		}, in.Wrap("admin_list_agents")),
		SetAgentActive: kitserver.NewEndpoint(func(ctx context.Context, req agentActive) (kitserver.Result, error) {
			a, err := svc.SetAgentActive(ctx, req.id, req.active)
			return agent(http.StatusOK, "Agent updated", a, err)
		}, in.Wrap("admin_set_agent_active")),
		IssueCode: kitserver.NewEndpoint(func(ctx context.Context, id agentID) (kitserver.Result, error) {
			code, expires, err := svc.IssueCode(ctx, string(id))
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Status: http.StatusCreated, Message: "One-time code issued; hand it to the agent",
				Data: map[string]any{"code": code, "expiresAt": envelope.Timestamp(expires)}}, nil
		}, in.Wrap("admin_issue_code")),
		Reassign: kitserver.NewEndpoint(func(ctx context.Context, req reassign) (kitserver.Result, error) {
			j, err := svc.Reassign(ctx, req.addressID, req.AgentID)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Message: "Task reassigned", Data: taskOf(r, j)}, nil
		}, in.Wrap("admin_reassign_task")),
		Evidence: kitserver.NewEndpoint(func(ctx context.Context, id addressID) (kitserver.Result, error) {
			ev, err := svc.Evidence(ctx, string(id))
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Message: "Evidence retrieved successfully", Data: evidenceView(string(id), ev)}, nil
		}, in.Wrap("admin_task_evidence")),
	}
}

// RegisterAdmin mounts operations' API under /admin/v1 behind the
// operators' token; it is reached on the service's own address, never
// through the gateway.
func RegisterAdmin(mux *http.ServeMux, e AdminEndpoints, token string, log *slog.Logger) {
	handle := func(pattern string, h http.Handler) { mux.Handle(pattern, kitserver.RequireAdmin(token, log, h)) }
	handle("POST /admin/v1/agents", kitserver.NewHandler(e.CreateAgent, decodeJSON[newAgent], log))
	handle("GET /admin/v1/agents", kitserver.NewHandler(e.Agents, func(context.Context, *http.Request) (struct{}, error) {
		return struct{}{}, nil
	}, log))
	for path, active := range map[string]bool{"disable": false, "enable": true} {
		handle("POST /admin/v1/agents/{id}/"+path, kitserver.NewHandler(e.SetAgentActive, func(_ context.Context, r *http.Request) (agentActive, error) {
			return agentActive{id: r.PathValue("id"), active: active}, nil
		}, log))
	}
	handle("POST /admin/v1/agents/{id}/code", kitserver.NewHandler(e.IssueCode, func(_ context.Context, r *http.Request) (agentID, error) {
		return agentID(r.PathValue("id")), nil
	}, log))
	handle("GET /admin/v1/tasks/{addressId}/evidence", kitserver.NewHandler(e.Evidence, func(_ context.Context, r *http.Request) (addressID, error) {
		return addressID(r.PathValue("addressId")), nil
	}, log))
	handle("POST /admin/v1/tasks/{addressId}/reassign", kitserver.NewHandler(e.Reassign, func(ctx context.Context, r *http.Request) (reassign, error) {
		req, err := decodeJSON[reassign](ctx, r)
		req.addressID = r.PathValue("addressId")
		return req, err
	}, log))
}
