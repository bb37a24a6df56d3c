package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
)

// AgentEndpoints are the field agents' API under /agent/v1, each typed by
// its request.
type AgentEndpoints struct {
	SignIn   kitserver.Endpoint[signIn]
	SignOut  kitserver.Endpoint[sessionToken]
	Tasks    kitserver.Endpoint[verification.FieldAgent]
	CheckIn  kitserver.Endpoint[taskChange[checkIn]]
	Complete kitserver.Endpoint[taskChange[complete]]
	AddPhoto kitserver.Endpoint[photoUpload]
}

type signIn struct {
	Phone string `json:"phone" required:"is required"`
	Code  string `json:"code" required:"is required"`
	// clientIP is the caller's address as the gateway saw it.
	clientIP string
}

// sessionToken is the agent's own session, to end.
type sessionToken string

// taskChange is an agent's change of one of its tasks: the decoded body,
// and the Idempotency-Key that makes a retry harmless.
type taskChange[In any] struct {
	agent     verification.FieldAgent
	addressID string
	in        In
	idem      verification.Idem
}

type checkIn struct {
	Latitude  float64 `json:"latitude" required:"is required"`
	Longitude float64 `json:"longitude" required:"is required"`
	Accuracy  float64 `json:"accuracy" required:"is required (metres)"`
}

type complete struct {
	Outcome         string                  `json:"outcome" required:"is required (VERIFIED, REJECTED or NO_ACCESS)"`
	Reason          string                  `json:"reason"`
	VerifiedAddress string                  `json:"verifiedAddress"`
	Latitude        float64                 `json:"latitude" required:"is required"`
	Longitude       float64                 `json:"longitude" required:"is required"`
	Accuracy        float64                 `json:"accuracy" required:"is required (metres)"`
	Notes           string                  `json:"notes"`
	Resident        *verification.Resident  `json:"resident"`
	Building        *verification.Building  `json:"building"`
	Neighbour       *verification.Neighbour `json:"neighbour"`
	Trail           *trail                  `json:"trail"`
}

// trail is the visit's audit trail as the agent app sends it.
type trail struct {
	Samples []verification.TrailSampleInput `json:"samples"`
}

func (in complete) outcome() verification.Outcome {
	o := verification.Outcome{Outcome: in.Outcome, Reason: in.Reason, VerifiedAddress: in.VerifiedAddress,
		At:    verification.Point{Latitude: in.Latitude, Longitude: in.Longitude, Accuracy: in.Accuracy},
		Notes: in.Notes, Resident: in.Resident, Building: in.Building, Neighbour: in.Neighbour}
	if in.Trail != nil {
		o.Trail = in.Trail.Samples
	}
	return o
}

// CheckIn is where and when the visit under way started.
type CheckIn struct {
	verification.Point
	At *string `json:"at"`
}

// Task is an open task as the agent app shows it.
type Task struct {
	view.Address
	CustomerID    string         `json:"customerId"`
	CustomerName  string         `json:"customerName"`
	CustomerPhone string         `json:"customerPhone"`
	DueAt         *string        `json:"dueAt"`
	Visit         *CheckIn       `json:"checkIn"`
	Attempts      []view.Attempt `json:"attempts"`
	PhotoCount    int            `json:"photoCount"`
	MapURL        string         `json:"mapUrl"`
	// ReviewNote is what the reviewer who sent the task back for a
	// re-visit wrote to the agent (null otherwise).
	ReviewNote *string `json:"reviewNote"`
}

// mapURL opens the phone's map app on the address: searched by its text
// near where it should be (the gazetteer's expected location), so a
// street name common to many towns is found in the right one.
func mapURL(a verification.Address) string {
	at := "0,0"
	if l, ok := verification.ExpectedLocation(a); ok {
		at = strconv.FormatFloat(l.Latitude, 'f', 6, 64) + "," + strconv.FormatFloat(l.Longitude, 'f', 6, 64)
	}
	return "geo:" + at + "?q=" + url.QueryEscape(verification.OneLine(a))
}

func taskOf(r view.Renderer, t verification.Task) Task {
	out := Task{Address: r.Address(t.Job), CustomerID: t.CustomerID, CustomerName: t.CustomerName, CustomerPhone: t.CustomerPhone,
		Attempts: view.Attempts(t.Job), PhotoCount: t.PhotoCount, MapURL: mapURL(t.Job.Address)}
	if t.Visit != nil {
		out.Visit = &CheckIn{Point: t.Visit.Point, At: envelope.Timestamp(t.Visit.At)}
	}
	if t.DueAt != nil {
		out.DueAt = envelope.Timestamp(*t.DueAt)
	}
	if n := t.ReviewNote(); n != "" {
		out.ReviewNote = &n
	}
	return out
}

func makeAgentEndpoints(svc *verification.Service, r view.Renderer, photos PhotoStore, in *kitserver.Instrumenter) AgentEndpoints {
	// changed answers an agent change with the task as it now is (final
	// tasks leave the agent's list but are still shown here).
	changed := func(msg string, t verification.Task, err error) (kitserver.Result, error) {
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: msg, Data: taskOf(r, t)}, nil
	}
	return AgentEndpoints{
		SignIn: kitserver.NewEndpoint(func(ctx context.Context, req signIn) (kitserver.Result, error) {
			token, a, expires, err := svc.SignIn(ctx, req.Phone, req.Code, req.clientIP)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Status: http.StatusCreated, Message: "Signed in", Data: map[string]any{
				"token": token, "expiresAt": envelope.Timestamp(expires), "agent": map[string]string{"id": a.ID, "name": a.Name}}}, nil
		}, in.Wrap("agent_sign_in")),
		SignOut: kitserver.NewEndpoint(func(ctx context.Context, token sessionToken) (kitserver.Result, error) {
			return kitserver.Result{Message: "Signed out"}, svc.SignOut(ctx, string(token))
		}, in.Wrap("agent_sign_out")),
		Tasks: kitserver.NewEndpoint(func(ctx context.Context, a verification.FieldAgent) (kitserver.Result, error) {
			tasks, err := svc.Tasks(ctx, a)
			if err != nil {
				return kitserver.Result{}, err
			}
			out := make([]Task, len(tasks))
			for i, t := range tasks {
				out[i] = taskOf(r, t)
			}
			return kitserver.Result{Message: "Tasks retrieved successfully", Data: map[string]any{"tasks": out}}, nil
		}, in.Wrap("agent_tasks")),
		CheckIn: kitserver.NewEndpoint(func(ctx context.Context, req taskChange[checkIn]) (kitserver.Result, error) {
			at := verification.Point{Latitude: req.in.Latitude, Longitude: req.in.Longitude, Accuracy: req.in.Accuracy}
			t, err := svc.CheckIn(ctx, req.agent, req.addressID, at, req.idem)
			return changed("Checked in", t, err)
		}, in.Wrap("agent_check_in")),
		Complete: kitserver.NewEndpoint(func(ctx context.Context, req taskChange[complete]) (kitserver.Result, error) {
			t, err := svc.Complete(ctx, req.agent, req.addressID, req.in.outcome(), req.idem)
			return changed("Visit recorded", t, err)
		}, in.Wrap("agent_complete")),
		AddPhoto: kitserver.NewEndpoint(func(ctx context.Context, req photoUpload) (kitserver.Result, error) {
			return addPhoto(ctx, svc, photos, req)
		}, in.Wrap("agent_add_photo")),
	}
}

// registerAgent mounts the field agents' API under /agent/v1. Every route
// needs the gateway's edge principal; all but sign-in need an agent
// session too (asAgent).
func registerAgent(mux *http.ServeMux, e AgentEndpoints, svc *verification.Service, photos PhotoStore,
	protect func(http.Handler, ...principal.Kind) http.Handler, log *slog.Logger) {
	edge := func(h http.Handler) http.Handler { return protect(h, principal.KindEdge) }
	agent := func(h http.Handler) http.Handler { return edge(asAgent(svc, log, h)) }
	mux.Handle("POST /agent/v1/session", edge(kitserver.NewHandler(e.SignIn, decodeSignIn, log)))
	mux.Handle("DELETE /agent/v1/session", agent(kitserver.NewHandler(e.SignOut, decodeSessionToken, log)))
	mux.Handle("GET /agent/v1/tasks", agent(kitserver.NewHandler(e.Tasks, decodeAgent, log)))
	mux.Handle("POST /agent/v1/tasks/{addressId}/check-in", agent(kitserver.NewHandler(e.CheckIn, decodeTaskChange[checkIn], log)))
	mux.Handle("POST /agent/v1/tasks/{addressId}/complete", agent(kitserver.NewHandler(e.Complete, decodeTaskChange[complete], log)))
	mux.Handle("POST /agent/v1/tasks/{addressId}/photos", agent(kitserver.NewHandler(e.AddPhoto, decodePhoto(svc, photos), log)))
}
