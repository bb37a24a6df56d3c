package httpapi

import (
	"context"
	"encoding/hex"
	"log/slog"
	"net/http"

	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
)

// maxBody bounds every JSON body this service reads.
const maxBody = 64 << 10

// Protector wraps handlers so that they require a gateway principal.
type Protector func(h http.Handler, kinds ...principal.Kind) http.Handler

// Register mounts the admin, internal and public API routes on mux.
func Register(mux *http.ServeMux, e Endpoints, adminToken string, protect Protector, log *slog.Logger) {
	admin := func(h http.Handler) http.Handler { return kitserver.RequireAdmin(adminToken, log, h) }
	pathOrg := func(r *http.Request) string { return r.PathValue("id") }

	mux.Handle("POST /admin/v1/orgs", admin(kitserver.NewHandler(e.CreateOrg, decodeCreateOrg, log)))
	mux.Handle("GET /admin/v1/orgs/{id}", admin(kitserver.NewHandler(e.GetOrg, decodeOrg(pathOrg), log)))
	mux.Handle("PUT /admin/v1/orgs/{id}/plan", admin(kitserver.NewHandler(e.ChangePlan, decodeChangePlan(pathOrg), log)))
	mux.Handle("POST /admin/v1/orgs/{id}/keys", admin(kitserver.NewHandler(e.CreateKey, decodeCreateKey(pathOrg), log)))
	mux.Handle("GET /admin/v1/orgs/{id}/keys", admin(kitserver.NewHandler(e.ListKeys, decodeOrg(pathOrg), log)))
	// An operator names a key by its id alone: no organization narrows it.
	anyOrg := func(*http.Request) string { return "" }
	mux.Handle("POST /admin/v1/keys/{id}/revoke", admin(kitserver.NewHandler(e.RevokeKey, decodeKey(anyOrg), log)))
	mux.Handle("GET /admin/v1/orgs/{id}/usage", admin(kitserver.NewHandler(e.Usage, decodeUsage(pathOrg), log)))

	mux.Handle("POST "+apikey.ResolvePath, protect(kitserver.NewHandler(e.Resolve, decodeResolve, log), principal.KindGateway))

	callerOrg := func(r *http.Request) string {
		p, _ := principal.From(r.Context())
		return p.OrgID
	}
	mux.Handle("GET /api/v1/billing/usage", protect(kitserver.NewHandler(e.Usage, decodeUsage(callerOrg), log), principal.KindAPIKey))
}

// The decoders take org, which says whose organization a request is
// about: the path's for the admin API, the caller's for the public and
// dashboard APIs.

func decodeOrg(org func(*http.Request) string) func(context.Context, *http.Request) (orgRequest, error) {
	return func(_ context.Context, r *http.Request) (orgRequest, error) {
		return orgRequest{OrgID: org(r)}, nil
	}
}

func decodeKey(org func(*http.Request) string) func(context.Context, *http.Request) (keyRequest, error) {
	return func(_ context.Context, r *http.Request) (keyRequest, error) {
		return keyRequest{OrgID: org(r), KeyID: r.PathValue("id")}, nil
	}
}

func decodeUsage(org func(*http.Request) string) func(context.Context, *http.Request) (usageRequest, error) {
	return func(_ context.Context, r *http.Request) (usageRequest, error) {
		return usageRequest{OrgID: org(r), Month: r.URL.Query().Get("month")}, nil
	}
}

func decodePlanPreview(org func(*http.Request) string) func(context.Context, *http.Request) (planPreviewRequest, error) {
	return func(_ context.Context, r *http.Request) (planPreviewRequest, error) {
		return planPreviewRequest{OrgID: org(r), Plan: r.URL.Query().Get("plan")}, nil
	}
}

func decodeCreateOrg(_ context.Context, r *http.Request) (createOrgRequest, error) {
	var req createOrgRequest
	return req, jsonbody.ReadInto(r, maxBody, &req)
}

// decodeChangePlan requires a plan, absent or null alike, but says so
// only when the body has no other problem.
func decodeChangePlan(org func(*http.Request) string) func(context.Context, *http.Request) (changePlanRequest, error) {
	return func(_ context.Context, r *http.Request) (changePlanRequest, error) {
		req := changePlanRequest{OrgID: org(r)}
		if err := jsonbody.ReadInto(r, maxBody, &req); err != nil {
			return req, err
		}
		if !req.Plan.Has() {
			return req, apperr.Validation(apperr.Detail{Field: "plan", Message: "is required"})
		}
		return req, nil
	}
}

func decodeCreateKey(org func(*http.Request) string) func(context.Context, *http.Request) (createKeyRequest, error) {
	return func(_ context.Context, r *http.Request) (createKeyRequest, error) {
		req := createKeyRequest{OrgID: org(r)}
		return req, jsonbody.ReadInto(r, maxBody, &req)
	}
}

// decodeRoll checks the grace period's range before it becomes a
// duration, so that no count of hours can overflow one.
func decodeRoll(org func(*http.Request) string) func(context.Context, *http.Request) (rollKeyRequest, error) {
	return func(_ context.Context, r *http.Request) (rollKeyRequest, error) {
		req := rollKeyRequest{OrgID: org(r), KeyID: r.PathValue("id")}
		if err := jsonbody.ReadInto(r, maxBody, &req); err != nil {
			return req, err
		}
		if req.GraceHours < 0 || req.GraceHours > 72 {
			return req, apperr.Validation(apperr.Detail{Field: "gracePeriodHours", Message: "must be between 0 and 72"})
		}
		return req, nil
	}
}

// decodeResolve reads the gateway's request leniently: other members are
// ignored and any problem with the hash is the one detail.
func decodeResolve(_ context.Context, r *http.Request) (resolveRequest, error) {
	b, err := jsonbody.Read(r, maxBody)
	if err != nil {
		return resolveRequest{}, err
	}
	h, _ := b.String("hash")
	raw, err := hex.DecodeString(h)
	if err != nil || len(raw) != 32 {
		return resolveRequest{}, apperr.Validation(apperr.Detail{Field: "hash", Message: "must be a hex SHA-256"})
	}
	return resolveRequest{Hash: raw}, nil
}
