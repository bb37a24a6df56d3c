// Package httpapi is the reporting service's transport: the report
// download (streamed, so a plain handler) and the public verify endpoint
// (a go-kit endpoint answering in the envelope).
package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// Endpoints are the reporting operations answered in the envelope.
type Endpoints struct {
	Verify   kitserver.Endpoint[verifyRequest]
	SetBrand kitserver.Endpoint[brandRequest]
	Brand    kitserver.Endpoint[report.Caller]
}

type verifyRequest struct{ code string }

// Verification is what the public verify endpoint answers: enough to
// tell a genuine report from a forged one, nothing personal.
type Verification struct {
	Genuine bool `json:"genuine"`
	// Reason says why a report the code names is not genuine
	// (WITHDRAWN: its customer was deleted); null when it is.
	Reason      *string `json:"reason"`
	ReportID    string  `json:"reportId"`
	CustomerID  string  `json:"customerId"`
	Status      string  `json:"status"`
	Version     int     `json:"version"`
	GeneratedAt *string `json:"generatedAt"`
	SHA256      string  `json:"sha256"`
	Environment string  `json:"environment"`
}

// MakeEndpoints builds the endpoints with instrumentation.
func MakeEndpoints(svc *report.Service, in *kitserver.Instrumenter) Endpoints {
	return Endpoints{
		Verify: kitserver.NewEndpoint(func(ctx context.Context, r verifyRequest) (kitserver.Result, error) {
			v, err := svc.Verify(ctx, r.code)
			if err != nil {
				return kitserver.Result{}, err
			}
			rep := v.Report
			out := Verification{Genuine: !v.Withdrawn, ReportID: rep.ID,
				CustomerID: rep.CustomerID, Status: rep.Status, Version: rep.Version,
				GeneratedAt: envelope.Timestamp(rep.GeneratedAt), SHA256: rep.SHA256, Environment: rep.Env}
			if v.Withdrawn {
				reason := report.ReasonWithdrawn
				out.Reason = &reason
				return kitserver.Result{Message: "This report was withdrawn: the lender deleted its customer, so it must not be relied on", Data: out}, nil
			}
			return kitserver.Result{Message: "This report is genuine", Data: out}, nil
		}, in.Wrap("verify_report")),
		SetBrand: kitserver.NewEndpoint(func(ctx context.Context, r brandRequest) (kitserver.Result, error) {
			b, err := svc.SetBrand(ctx, r.who, r.in)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Message: "Branding saved: reports rendered from now on show it", Data: brandView(b)}, nil
		}, in.Wrap("set_report_branding")),
		Brand: kitserver.NewEndpoint(func(ctx context.Context, who report.Caller) (kitserver.Result, error) {
			b, err := svc.Brand(ctx, who)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Message: "Branding retrieved successfully", Data: brandView(b)}, nil
		}, in.Wrap("get_report_branding")),
	}
}

// Register mounts the reporting routes on mux. The download needs an
// API-key principal; the verify endpoint is public, so the gateway
// vouches for it with an edge principal (it rate-limits it per client IP).
func Register(mux *http.ServeMux, e Endpoints, svc *report.Service,
	protect func(http.Handler, ...principal.Kind) http.Handler, log *slog.Logger) {
	mux.Handle("GET /api/v1/customers/{id}/report", protect(download(svc, log), principal.KindAPIKey))
	mux.Handle("PUT /api/v1/reports/branding", protect(kitserver.NewHandler(e.SetBrand, decodeBrand, log), principal.KindAPIKey))
	mux.Handle("GET /api/v1/reports/branding", protect(kitserver.NewHandler(e.Brand,
		func(ctx context.Context, _ *http.Request) (report.Caller, error) { return caller(ctx), nil }, log), principal.KindAPIKey))
	mux.Handle("GET /api/v1/reports/verify/{code}", protect(kitserver.NewHandler(e.Verify,
		func(_ context.Context, r *http.Request) (verifyRequest, error) {
			return verifyRequest{code: r.PathValue("code")}, nil
		}, log), principal.KindEdge))
}

func caller(ctx context.Context) report.Caller {
	p, _ := principal.From(ctx)
	return report.Caller{OrgID: p.OrgID, Env: string(p.Env), Plan: p.Plan}
}

// download streams the newest report. Its SHA-256 is a strong ETag: a
// version's bytes never change, and a new version has a new hash.
func download(svc *report.Service, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		id := r.PathValue("id")
		var rep report.Report
		var body io.ReadCloser
		err := kitserver.RetryRead(ctx, log, func() (err error) {
			rep, body, err = svc.Latest(ctx, caller(ctx), id)
			return err
		})
		if err != nil {
			envelope.Fail(ctx, w, log, err)
			return
		}
		defer body.Close()
		etag := `"` + rep.SHA256 + `"`
		h := w.Header()
		if r.Header.Get("If-None-Match") == etag {
			h.Set("ETag", etag)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		// The store's reader connects lazily: peek so that a store that is
		// down is a 503, not a broken 200.
		br := bufio.NewReaderSize(body, 32<<10)
		if _, err := br.Peek(1); err != nil {
			envelope.Fail(ctx, w, log, report.StorageUnavailable(fmt.Errorf("report %s: %w", rep.ID, err)))
			return
		}
		h.Set("Content-Type", "application/pdf")
		h.Set("Content-Length", strconv.FormatInt(rep.Size, 10))
		h.Set("ETag", etag)
		h.Set("Last-Modified", rep.GeneratedAt.UTC().Format(http.TimeFormat))
		h.Set("Cache-Control", "private, no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Report-Id", rep.ID)
		h.Set("X-Report-Version", strconv.Itoa(rep.Version))
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "kyc-report-" + id + ".pdf"}))
		if _, err := io.Copy(w, br); err != nil {
			log.WarnContext(ctx, "report download interrupted", "report", rep.ID, "err", err)
		}
	})
}
