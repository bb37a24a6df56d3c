package httpapi

import (
	"context"
	"crypto/subtle"
	"encoding/hex"
	"github.com/kycfield/kyc/pkg/apikey"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-kit/kit/endpoint"
	kithttp "github.com/go-kit/kit/transport/http"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
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
	admin := func(h http.Handler) http.Handler { return requireAdmin(adminToken, log, h) }
	s := func(ep kitEndpoint, dec kithttp.DecodeRequestFunc) http.Handler {
		return kitserver.NewServer(ep, dec, log)
	}

	mux.Handle("POST /admin/v1/orgs", admin(s(e.CreateOrg, decodeCreateOrg)))
	mux.Handle("GET /admin/v1/orgs/{id}", admin(s(e.GetOrg, decodeOrgPath)))
	mux.Handle("PUT /admin/v1/orgs/{id}/plan", admin(s(e.ChangePlan, decodeChangePlan(func(r *http.Request) string { return r.PathValue("id") }))))
	mux.Handle("POST /admin/v1/orgs/{id}/keys", admin(s(e.CreateKey, decodeCreateKey(func(r *http.Request) string { return r.PathValue("id") }))))
	mux.Handle("GET /admin/v1/orgs/{id}/keys", admin(s(e.ListKeys, decodeOrgPath)))
	mux.Handle("POST /admin/v1/keys/{id}/revoke", admin(s(e.RevokeKey, func(_ context.Context, r *http.Request) (any, error) {
		return keyRequest{KeyID: r.PathValue("id")}, nil
	})))
	mux.Handle("GET /admin/v1/orgs/{id}/usage", admin(s(e.Usage, func(_ context.Context, r *http.Request) (any, error) {
		return usageRequest{OrgID: r.PathValue("id"), Month: r.URL.Query().Get("month")}, nil
	})))

	mux.Handle("POST "+apikey.ResolvePath, protect(s(e.Resolve, decodeResolve), principal.KindGateway))

	mux.Handle("GET /api/v1/billing/usage", protect(s(e.Usage, func(ctx context.Context, r *http.Request) (any, error) {
		p, _ := principal.From(ctx)
		return usageRequest{OrgID: p.OrgID, Month: r.URL.Query().Get("month")}, nil
	}), principal.KindAPIKey))
}

type kitEndpoint = endpoint.Endpoint

// requireAdmin checks the operator token in constant time.
func requireAdmin(token string, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || token == "" || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			envelope.Fail(r.Context(), w, log, apperr.New(apperr.KindUnauthorized, apperr.CodeUnauthorized, "Missing or invalid admin token"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func decodeOrgPath(_ context.Context, r *http.Request) (any, error) {
	return orgRequest{OrgID: r.PathValue("id")}, nil
}

func decodeCreateOrg(_ context.Context, r *http.Request) (any, error) {
	b, err := jsonbody.Read(r, maxBody)
	if err != nil {
		return nil, err
	}
	b.RejectUnknown("name", "plan")
	name, _ := b.String("name")
	plan, _ := b.String("plan")
	if errs := b.Errors(); len(errs) > 0 {
		return nil, apperr.Validation(errs...)
	}
	return createOrgRequest{Name: name, Plan: plan}, nil
}

func decodeChangePlan(org func(*http.Request) string) kithttp.DecodeRequestFunc {
	return func(_ context.Context, r *http.Request) (any, error) {
		b, err := jsonbody.Read(r, maxBody)
		if err != nil {
			return nil, err
		}
		b.RejectUnknown("plan")
		plan, ok := b.String("plan")
		if !ok && len(b.Errors()) == 0 {
			b.Fail("plan", "is required")
		}
		if errs := b.Errors(); len(errs) > 0 {
			return nil, apperr.Validation(errs...)
		}
		return changePlanRequest{OrgID: org(r), Plan: plan}, nil
	}
}

func decodeCreateKey(org func(*http.Request) string) kithttp.DecodeRequestFunc {
	return func(_ context.Context, r *http.Request) (any, error) {
		b, err := jsonbody.Read(r, maxBody)
		if err != nil {
			return nil, err
		}
		b.RejectUnknown("environment", "scopes", "name")
		env, ok := b.String("environment")
		if !ok && !b.Has("environment") {
			b.Fail("environment", "is required (test or live)")
		}
		scopes, _ := b.Strings("scopes")
		name, _ := b.String("name")
		if errs := b.Errors(); len(errs) > 0 {
			return nil, apperr.Validation(errs...)
		}
		return createKeyRequest{OrgID: org(r), Env: env, Scopes: scopes, Name: name}, nil
	}
}

func decodeRoll(org func(*http.Request) string) kithttp.DecodeRequestFunc {
	return func(_ context.Context, r *http.Request) (any, error) {
		b, err := jsonbody.Read(r, maxBody)
		if err != nil {
			return nil, err
		}
		b.RejectUnknown("gracePeriodHours")
		hours, _ := b.Int("gracePeriodHours")
		if errs := b.Errors(); len(errs) > 0 {
			return nil, apperr.Validation(errs...)
		}
		if hours < 0 || hours > 72 {
			return nil, apperr.Validation(apperr.Detail{Field: "gracePeriodHours", Message: "must be between 0 and 72"})
		}
		return rollKeyRequest{OrgID: org(r), KeyID: r.PathValue("id"), Grace: time.Duration(hours) * time.Hour}, nil
	}
}

func decodeResolve(_ context.Context, r *http.Request) (any, error) {
	b, err := jsonbody.Read(r, maxBody)
	if err != nil {
		return nil, err
	}
	h, _ := b.String("hash")
	raw, err := hex.DecodeString(h)
	if err != nil || len(raw) != 32 {
		return nil, apperr.Validation(apperr.Detail{Field: "hash", Message: "must be a hex SHA-256"})
	}
	return resolveRequest{Hash: raw}, nil
}
