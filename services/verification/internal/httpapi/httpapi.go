// Package httpapi is the verification service's transport: go-kit
// endpoints for the organization's statistics and the photo download,
// under /api/v1/verification; the field agents' API under /agent/v1;
// operations' API under /admin/v1. (A customer's status is the customer
// service's: it owns the record every lender write changes.)
package httpapi

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
)

// Endpoints are the verification operations, each typed by its request.
type Endpoints struct {
	Stats   kitserver.Endpoint[verification.Caller]
	Agent   AgentEndpoints
	Admin   AdminEndpoints
	Reviews ReviewEndpoints
}

// Stats is the data of GET /api/v1/verification/stats: the spec's total,
// pending (every customer not yet final), verified and rejected, plus
// inProgress (the part of pending an agent has started) and the average
// turnaround of customers that reached a final status (null before any).
type Stats struct {
	Total                    int64    `json:"total"`
	Pending                  int64    `json:"pending"`
	Verified                 int64    `json:"verified"`
	Rejected                 int64    `json:"rejected"`
	InProgress               int64    `json:"inProgress"`
	AverageTurnaroundSeconds *float64 `json:"averageTurnaroundSeconds"`
}

// MakeEndpoints builds the endpoints with instrumentation; photos keeps
// the agents' photo files.
func MakeEndpoints(svc *verification.Service, r view.Renderer, photos PhotoStore, in *kitserver.Instrumenter) Endpoints {
	return Endpoints{
		Stats: kitserver.NewEndpoint(func(ctx context.Context, who verification.Caller) (kitserver.Result, error) {
			st, err := svc.Stats(ctx, who)
			if err != nil {
				return kitserver.Result{}, err
			}
			out := Stats{Total: st.Total, Pending: st.Pending + st.InProgress, Verified: st.Verified, Rejected: st.Rejected,
				InProgress: st.InProgress}
			if st.AverageTurnaround != nil {
				secs := st.AverageTurnaround.Seconds()
				out.AverageTurnaroundSeconds = &secs
			}
			return kitserver.Result{Message: "Verification statistics retrieved successfully", Data: out}, nil
		}, in.Wrap("verification_stats")),
		Agent:   makeAgentEndpoints(svc, r, photos, in),
		Admin:   makeAdminEndpoints(svc, r, in),
		Reviews: makeReviewEndpoints(svc, r, in),
	}
}

// Register mounts the routes on mux: the lenders' reads (API-key
// principals signed by the gateway) and the field agents' API (agent
// sessions, vouched for by the gateway as edge principals).
func Register(mux *http.ServeMux, e Endpoints, svc *verification.Service, photos PhotoStore,
	protect func(http.Handler, ...principal.Kind) http.Handler, log *slog.Logger) {
	handle := func(pattern string, h http.Handler) { mux.Handle(pattern, protect(h, principal.KindAPIKey)) }
	handle("GET /api/v1/verification/stats", kitserver.NewHandler(e.Stats, func(ctx context.Context, _ *http.Request) (verification.Caller, error) {
		return caller(ctx), nil
	}, log))
	// The reporting service reads photos here too, with a service
	// principal for the report's organization and environment.
	mux.Handle("GET /api/v1/verification/{customerId}/photos/{photoId}", protect(photo(svc, photos, log),
		principal.KindAPIKey, principal.KindService))
	registerAgent(mux, e.Agent, svc, photos, protect, log)
}

func caller(ctx context.Context) verification.Caller {
	p, _ := principal.From(ctx)
	return verification.Caller{OrgID: p.OrgID, Env: string(p.Env), Context: p.Kind == principal.KindService}
}

// photo streams a photo of the caller's customer; anyone else's is 404.
// Photos never change, so the id is a strong ETag.
func photo(svc *verification.Service, photos PhotoStore, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		var p verification.Photo
		err := kitserver.RetryRead(ctx, log, func() (err error) {
			p, err = svc.Photo(ctx, caller(ctx), r.PathValue("customerId"), r.PathValue("photoId"))
			return err
		})
		if err != nil {
			envelope.Fail(ctx, w, log, err)
			return
		}
		servePhoto(w, r, p, photos, log)
	})
}

// servePhoto streams a photo the caller may see. Photos never change, so
// the id is a strong ETag.
func servePhoto(w http.ResponseWriter, r *http.Request, p verification.Photo, photos PhotoStore, log *slog.Logger) {
	ctx := r.Context()
	etag := `"` + p.ID + `"`
	if r.Header.Get("If-None-Match") == etag {
		w.Header().Set("ETag", etag)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body, err := photos.Get(ctx, p.ObjectKey)
	if err != nil {
		envelope.Fail(ctx, w, log, fmt.Errorf("photo %s: %w", p.ID, err))
		return
	}
	defer body.Close()
	h := w.Header()
	h.Set("Content-Type", p.ContentType)
	h.Set("Content-Length", strconv.FormatInt(p.Size, 10))
	h.Set("ETag", etag)
	h.Set("Cache-Control", "private, max-age=86400, immutable")
	h.Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s-%s%s"`, p.Tag, p.ID, photoTypes[p.ContentType]))
	h.Set("X-Content-Type-Options", "nosniff") // served inline: never sniffed as anything but an image
	if _, err := io.Copy(w, body); err != nil {
		log.WarnContext(ctx, "photo download interrupted", "photo", p.ID, "err", err)
	}
}
