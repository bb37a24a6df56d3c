package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
)

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

type reassign struct {
	AgentID string `json:"agentId" required:"is required"`
}

// RegisterAdmin mounts operations' API for agents and tasks under
// /admin/v1 (kycctl agents, kycctl tasks), behind the operators' token;
// it is reached on the service's own address, never through the gateway.
func RegisterAdmin(mux *http.ServeMux, svc *verification.Service, r view.Renderer, token string, log *slog.Logger) {
	admin := func(h http.HandlerFunc) http.Handler { return kitserver.RequireAdmin(token, log, h) }
	reply := func(w http.ResponseWriter, req *http.Request, status int, msg string, data any, err error) {
		if err != nil {
			envelope.Fail(req.Context(), w, log, err)
			return
		}
		envelope.OK(req.Context(), w, status, msg, data)
	}
	mux.Handle("POST /admin/v1/agents", admin(func(w http.ResponseWriter, req *http.Request) {
		var in newAgent
		if _, err := readJSON(req, &in); err != nil {
			reply(w, req, 0, "", nil, err)
			return
		}
		a, err := svc.CreateAgent(req.Context(), verification.AgentInput{Name: in.Name, Phone: in.Phone, States: in.States, LGAs: in.LGAs})
		reply(w, req, http.StatusCreated, "Agent created", agentView(a), err)
	}))
	mux.Handle("GET /admin/v1/agents", admin(func(w http.ResponseWriter, req *http.Request) {
		agents, err := svc.Agents(req.Context())
		out := make([]Agent, len(agents))
		for i, a := range agents {
			out[i] = agentView(a)
		}
		reply(w, req, http.StatusOK, "Agents retrieved successfully", map[string]any{"agents": out}, err)
	}))
	for path, active := range map[string]bool{"disable": false, "enable": true} {
		mux.Handle("POST /admin/v1/agents/{id}/"+path, admin(func(w http.ResponseWriter, req *http.Request) {
			a, err := svc.SetAgentActive(req.Context(), req.PathValue("id"), active)
			reply(w, req, http.StatusOK, "Agent updated", agentView(a), err)
		}))
	}
	mux.Handle("POST /admin/v1/agents/{id}/code", admin(func(w http.ResponseWriter, req *http.Request) {
		code, expires, err := svc.IssueCode(req.Context(), req.PathValue("id"))
		reply(w, req, http.StatusCreated, "One-time code issued; hand it to the agent",
			map[string]any{"code": code, "expiresAt": envelope.Timestamp(expires)}, err)
	}))
	mux.Handle("POST /admin/v1/tasks/{addressId}/reassign", admin(func(w http.ResponseWriter, req *http.Request) {
		var in reassign
		if _, err := readJSON(req, &in); err != nil {
			reply(w, req, 0, "", nil, err)
			return
		}
		j, err := svc.Reassign(req.Context(), req.PathValue("addressId"), in.AgentID)
		reply(w, req, http.StatusOK, "Task reassigned", taskOf(r, j), err)
	}))
}
