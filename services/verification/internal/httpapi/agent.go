package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
)

// maxJSON bounds agent JSON bodies (the gateway enforces the same limit).
const maxJSON = 1 << 20

type agentKey struct{}

// asAgent serves next only with a valid agent session: the gateway hands
// the token on in principal.AgentTokenHeader.
func asAgent(svc *verification.Service, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, err := svc.Authenticate(r.Context(), r.Header.Get(principal.AgentTokenHeader))
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="agent"`)
			envelope.Fail(r.Context(), w, log, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), agentKey{}, a)))
	})
}

func agentOf(ctx context.Context) verification.FieldAgent {
	a, _ := ctx.Value(agentKey{}).(verification.FieldAgent)
	return a
}

// idemOf reads the Idempotency-Key every mutating agent call must carry
// and fingerprints the request it came with.
func idemOf(r *http.Request, body []byte) (verification.Idem, error) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" || len(key) > 255 {
		return verification.Idem{}, apperr.Validation(apperr.Detail{Field: "Idempotency-Key",
			Message: "header is required on every agent change (1-255 characters), so a retry never acts twice"})
	}
	h := sha256.New()
	_, _ = io.WriteString(h, r.Method+" "+r.URL.Path+"\n")
	_, _ = h.Write(body)
	return verification.Idem{Key: key, Fingerprint: hex.EncodeToString(h.Sum(nil))}, nil
}

// readJSON reads a JSON body (kept for the fingerprint) into dst, with
// the same content-type, size and decoding rules as every JSON endpoint.
func readJSON(r *http.Request, dst any) ([]byte, error) {
	b, err := jsonbody.ReadRaw(r, maxJSON)
	if err != nil {
		return nil, err
	}
	return b, jsonbody.Decode(b, dst)
}

type signIn struct {
	Phone string `json:"phone" required:"is required"`
	Code  string `json:"code" required:"is required"`
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
}

func taskOf(r view.Renderer, t verification.Task) Task {
	out := Task{Address: r.Address(t.Job), CustomerID: t.CustomerID, CustomerName: t.CustomerName, CustomerPhone: t.CustomerPhone,
		Attempts: view.Attempts(t.Job), PhotoCount: t.PhotoCount,
		MapURL: "geo:0,0?q=" + url.QueryEscape(verification.OneLine(t.Job.Address))}
	if t.Visit != nil {
		out.Visit = &CheckIn{Point: t.Visit.Point, At: envelope.Timestamp(t.Visit.At)}
	}
	if t.DueAt != nil {
		out.DueAt = envelope.Timestamp(*t.DueAt)
	}
	return out
}

// registerAgent mounts the field agents' API under /agent/v1.
func registerAgent(mux *http.ServeMux, svc *verification.Service, r view.Renderer, photos PhotoStore,
	protect func(http.Handler, ...principal.Kind) http.Handler, log *slog.Logger) {
	edge := func(h http.HandlerFunc) http.Handler { return protect(h, principal.KindEdge) }
	agent := func(h http.HandlerFunc) http.Handler { return protect(asAgent(svc, log, h), principal.KindEdge) }
	fail := func(w http.ResponseWriter, req *http.Request, err error) { envelope.Fail(req.Context(), w, log, err) }

	mux.Handle("POST /agent/v1/session", edge(func(w http.ResponseWriter, req *http.Request) {
		var in signIn
		if _, err := readJSON(req, &in); err != nil {
			fail(w, req, err)
			return
		}
		token, a, expires, err := svc.SignIn(req.Context(), in.Phone, in.Code)
		if err != nil {
			fail(w, req, err)
			return
		}
		envelope.OK(req.Context(), w, http.StatusCreated, "Signed in", map[string]any{
			"token": token, "expiresAt": envelope.Timestamp(expires), "agent": map[string]string{"id": a.ID, "name": a.Name}})
	}))
	mux.Handle("DELETE /agent/v1/session", agent(func(w http.ResponseWriter, req *http.Request) {
		if err := svc.SignOut(req.Context(), req.Header.Get(principal.AgentTokenHeader)); err != nil {
			fail(w, req, err)
			return
		}
		envelope.OK(req.Context(), w, http.StatusOK, "Signed out", nil)
	}))
	mux.Handle("GET /agent/v1/tasks", agent(func(w http.ResponseWriter, req *http.Request) {
		tasks, err := svc.Tasks(req.Context(), agentOf(req.Context()))
		if err != nil {
			fail(w, req, err)
			return
		}
		out := make([]Task, len(tasks))
		for i, t := range tasks {
			out[i] = taskOf(r, t)
		}
		envelope.OK(req.Context(), w, http.StatusOK, "Tasks retrieved successfully", map[string]any{"tasks": out})
	}))
	mux.Handle("POST /agent/v1/tasks/{addressId}/check-in", agent(taskChange(r, log, "Checked in",
		func(ctx context.Context, a verification.FieldAgent, addressID string, in checkIn, idem verification.Idem) (verification.Task, error) {
			return svc.CheckIn(ctx, a, addressID, verification.Point{Latitude: in.Latitude, Longitude: in.Longitude, Accuracy: in.Accuracy}, idem)
		})))
	mux.Handle("POST /agent/v1/tasks/{addressId}/complete", agent(taskChange(r, log, "Visit recorded",
		func(ctx context.Context, a verification.FieldAgent, addressID string, in complete, idem verification.Idem) (verification.Task, error) {
			return svc.Complete(ctx, a, addressID, verification.Outcome{Outcome: in.Outcome, Reason: in.Reason,
				VerifiedAddress: in.VerifiedAddress, At: verification.Point{Latitude: in.Latitude, Longitude: in.Longitude, Accuracy: in.Accuracy},
				Notes: in.Notes, Resident: in.Resident, Building: in.Building, Neighbour: in.Neighbour}, idem)
		})))
	mux.Handle("POST /agent/v1/tasks/{addressId}/photos", agent(func(w http.ResponseWriter, req *http.Request) {
		uploadPhoto(w, req, svc, photos, log)
	}))
}

// taskChange serves an agent's change of one of its tasks: the JSON body
// into In and the call's Idempotency-Key, then act, answered with the task
// as it now is.
func taskChange[In any](r view.Renderer, log *slog.Logger, msg string,
	act func(ctx context.Context, a verification.FieldAgent, addressID string, in In, idem verification.Idem) (verification.Task, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		var in In
		body, err := readJSON(req, &in)
		idem, ierr := idemOf(req, body)
		if err = firstOf(err, ierr); err != nil {
			envelope.Fail(req.Context(), w, log, err)
			return
		}
		t, err := act(req.Context(), agentOf(req.Context()), req.PathValue("addressId"), in, idem)
		taskReply(w, req, r, t, err, msg, log)
	}
}

func firstOf(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// taskReply answers an agent change with the task as it now is (final
// tasks leave the agent's list but are still shown here).
func taskReply(w http.ResponseWriter, req *http.Request, r view.Renderer, t verification.Task, err error, msg string, log *slog.Logger) {
	if err != nil {
		envelope.Fail(req.Context(), w, log, err)
		return
	}
	envelope.OK(req.Context(), w, http.StatusOK, msg, taskOf(r, t))
}
