// Package httpapi is auth-billing's transport: go-kit endpoints over the
// account and billing use cases, and their HTTP routes for the admin API
// (kycctl), the internal key resolution API (gateway), the dashboard API
// (browser sessions) and the public billing endpoint (API keys).
package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/go-kit/kit/endpoint"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
	"github.com/kycfield/kyc/services/auth-billing/internal/billing"
)

// Endpoints are the operations of this service.
type Endpoints struct {
	CreateOrg, GetOrg, ChangePlan, CreateKey, ListKeys, RevokeKey, RollKey, Usage, Resolve endpoint.Endpoint
}

type createOrgRequest struct{ Name, Plan string }
type orgRequest struct{ OrgID string }
type changePlanRequest struct{ OrgID, Plan string }
type createKeyRequest struct {
	OrgID, Env, Name string
	Scopes           []string
}
type keyRequest struct{ OrgID, KeyID string }
type rollKeyRequest struct {
	OrgID, KeyID string
	Grace        time.Duration
}
type usageRequest struct{ OrgID, Month string }
type resolveRequest struct{ Hash []byte }

// MakeEndpoints builds the endpoints, each wrapped by the instrumenter.
func MakeEndpoints(acc *account.Service, bill *billing.Service, in *kitserver.Instrumenter) Endpoints {
	return Endpoints{
		CreateOrg: in.Wrap("create_org")(func(ctx context.Context, req any) (any, error) {
			r := req.(createOrgRequest)
			o, err := acc.CreateOrg(ctx, r.Name, r.Plan)
			return kitserver.Result{Status: http.StatusCreated, Message: "Organization created", Data: orgView(o)}, err
		}),
		GetOrg: in.Wrap("get_org")(func(ctx context.Context, req any) (any, error) {
			o, err := acc.Org(ctx, req.(orgRequest).OrgID)
			return kitserver.Result{Message: "Organization retrieved", Data: orgView(o)}, err
		}),
		ChangePlan: in.Wrap("change_plan")(func(ctx context.Context, req any) (any, error) {
			r := req.(changePlanRequest)
			o, err := acc.ChangePlan(ctx, r.OrgID, r.Plan)
			return kitserver.Result{Message: "Plan changed", Data: orgView(o)}, err
		}),
		CreateKey: in.Wrap("create_key")(func(ctx context.Context, req any) (any, error) {
			r := req.(createKeyRequest)
			k, err := acc.CreateKey(ctx, r.OrgID, r.Env, r.Scopes, r.Name)
			return kitserver.Result{Status: http.StatusCreated, Message: "API key created; store it now, it is not shown again", Data: newKeyView(k)}, err
		}),
		ListKeys: in.Wrap("list_keys")(func(ctx context.Context, req any) (any, error) {
			ks, err := acc.Keys(ctx, req.(orgRequest).OrgID)
			views := make([]map[string]any, len(ks))
			for i, k := range ks {
				views[i] = keyView(k)
			}
			return kitserver.Result{Message: "API keys retrieved", Data: map[string]any{"keys": views}}, err
		}),
		RevokeKey: in.Wrap("revoke_key")(func(ctx context.Context, req any) (any, error) {
			r := req.(keyRequest)
			k, err := acc.RevokeKey(ctx, r.OrgID, r.KeyID)
			return kitserver.Result{Message: "API key revoked", Data: keyView(k)}, err
		}),
		RollKey: in.Wrap("roll_key")(func(ctx context.Context, req any) (any, error) {
			r := req.(rollKeyRequest)
			nk, old, err := acc.RollKey(ctx, r.OrgID, r.KeyID, r.Grace)
			return kitserver.Result{Status: http.StatusCreated, Message: "API key rolled; store the new key now, it is not shown again",
				Data: map[string]any{"key": newKeyView(nk), "previous": keyView(old)}}, err
		}),
		Usage: in.Wrap("usage")(func(ctx context.Context, req any) (any, error) {
			r := req.(usageRequest)
			o, err := acc.Org(ctx, r.OrgID)
			if err != nil {
				return nil, err
			}
			rep, err := bill.Report(ctx, o.ID, r.Month, o.Plan)
			return kitserver.Result{Message: "Usage retrieved", Data: rep}, err
		}),
		Resolve: in.Wrap("resolve_key")(func(ctx context.Context, req any) (any, error) {
			k, o, err := acc.Resolve(ctx, req.(resolveRequest).Hash)
			return kitserver.Result{Message: "Key resolved", Data: map[string]any{"key": k, "organization": o}}, err
		}),
	}
}

// orgView is an organization with its plan spelled out.
func orgView(o account.Org) map[string]any {
	return map[string]any{"id": o.ID, "name": o.Name, "plan": o.Plan, "planDetails": account.Plans[o.Plan],
		"createdAt": envelope.Timestamp(o.CreatedAt), "updatedAt": envelope.Timestamp(o.UpdatedAt)}
}

// keyView never includes the secret or its hash.
func keyView(k account.Key) map[string]any {
	status := "active"
	switch {
	case k.RevokedAt != nil:
		status = "revoked"
	case k.ExpiresAt != nil && !time.Now().Before(*k.ExpiresAt):
		status = "expired"
	case k.ExpiresAt != nil:
		status = "expiring"
	}
	return map[string]any{"id": k.ID, "organizationId": k.OrgID, "environment": k.Env, "scopes": k.Scopes, "name": k.Name,
		"displayPrefix": k.Prefix, "status": status, "createdAt": envelope.Timestamp(k.CreatedAt),
		"lastUsedAt": tsPtr(k.LastUsedAt), "revokedAt": tsPtr(k.RevokedAt), "expiresAt": tsPtr(k.ExpiresAt),
		"replacedBy": nullIfEmpty(k.ReplacedBy)}
}

// newKeyView is keyView plus the secret, shown once.
func newKeyView(k account.NewKey) map[string]any {
	v := keyView(k.Key)
	v["key"] = k.Secret
	return v
}

func tsPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	return envelope.Timestamp(*t)
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
