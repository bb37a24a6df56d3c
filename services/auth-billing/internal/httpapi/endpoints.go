// Package httpapi is auth-billing's transport: go-kit endpoints over the
// account and billing use cases, and their HTTP routes for the admin API
// (kycctl), the internal key resolution API (gateway), the dashboard API
// (browser sessions) and the public billing endpoint (API keys).
package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/services/auth-billing/internal/account"
	"github.com/kycfield/kyc/services/auth-billing/internal/billing"
)

// Endpoints are the operations of this service, each typed by its
// request.
type Endpoints struct {
	CreateOrg   kitserver.Endpoint[createOrgRequest]
	GetOrg      kitserver.Endpoint[orgRequest]
	ChangePlan  kitserver.Endpoint[changePlanRequest]
	CreateKey   kitserver.Endpoint[createKeyRequest]
	ListKeys    kitserver.Endpoint[orgRequest]
	RevokeKey   kitserver.Endpoint[keyRequest]
	RollKey     kitserver.Endpoint[rollKeyRequest]
	Usage       kitserver.Endpoint[usageRequest]
	PlanPreview kitserver.Endpoint[planPreviewRequest]
	Resolve     kitserver.Endpoint[resolveRequest]
}

// The requests. Members of a JSON body are decoded into the tagged
// fields by jsonbody; fields tagged "-" come from the path or the caller.

type createOrgRequest struct {
	Name string `json:"name"`
	Plan string `json:"plan"`
}
type orgRequest struct{ OrgID string }
type changePlanRequest struct {
	OrgID string                 `json:"-"`
	Plan  optional.Field[string] `json:"plan"`
}
type createKeyRequest struct {
	OrgID  string   `json:"-"`
	Env    string   `json:"environment" required:"is required (test or live)"`
	Scopes []string `json:"scopes"`
	Name   string   `json:"name"`
}
type keyRequest struct{ OrgID, KeyID string }
type rollKeyRequest struct {
	OrgID      string `json:"-"`
	KeyID      string `json:"-"`
	GraceHours int64  `json:"gracePeriodHours"`
}
type usageRequest struct{ OrgID, Month string }
type planPreviewRequest struct{ OrgID, Plan string }
type resolveRequest struct{ Hash []byte }

// MakeEndpoints builds the endpoints, each wrapped by the instrumenter.
func MakeEndpoints(acc *account.Service, bill *billing.Service, in *kitserver.Instrumenter) Endpoints {
	return Endpoints{
		CreateOrg: kitserver.NewEndpoint(func(ctx context.Context, r createOrgRequest) (kitserver.Result, error) {
			o, err := acc.CreateOrg(ctx, r.Name, r.Plan)
			return kitserver.Result{Status: http.StatusCreated, Message: "Organization created", Data: viewOrg(o)}, err
		}, in.Wrap("create_org")),
		GetOrg: kitserver.NewEndpoint(func(ctx context.Context, r orgRequest) (kitserver.Result, error) {
			o, err := acc.Org(ctx, r.OrgID)
			return kitserver.Result{Message: "Organization retrieved", Data: viewOrg(o)}, err
		}, in.Wrap("get_org")),
		ChangePlan: kitserver.NewEndpoint(func(ctx context.Context, r changePlanRequest) (kitserver.Result, error) {
			o, err := acc.ChangePlan(ctx, r.OrgID, r.Plan.V)
			return kitserver.Result{Message: "Plan changed", Data: viewOrg(o)}, err
		}, in.Wrap("change_plan")),
		CreateKey: kitserver.NewEndpoint(func(ctx context.Context, r createKeyRequest) (kitserver.Result, error) {
			k, err := acc.CreateKey(ctx, r.OrgID, r.Env, r.Scopes, r.Name)
			return kitserver.Result{Status: http.StatusCreated, Message: "API key created; store it now, it is not shown again", Data: viewNewKey(k)}, err
		}, in.Wrap("create_key")),
		ListKeys: kitserver.NewEndpoint(func(ctx context.Context, r orgRequest) (kitserver.Result, error) {
			ks, err := acc.Keys(ctx, r.OrgID)
			return kitserver.Result{Message: "API keys retrieved", Data: viewKeys(ks)}, err
		}, in.Wrap("list_keys")),
		RevokeKey: kitserver.NewEndpoint(func(ctx context.Context, r keyRequest) (kitserver.Result, error) {
			k, err := acc.RevokeKey(ctx, r.OrgID, r.KeyID)
			return kitserver.Result{Message: "API key revoked", Data: viewKey(k)}, err
		}, in.Wrap("revoke_key")),
		RollKey: kitserver.NewEndpoint(func(ctx context.Context, r rollKeyRequest) (kitserver.Result, error) {
			nk, old, err := acc.RollKey(ctx, r.OrgID, r.KeyID, time.Duration(r.GraceHours)*time.Hour)
			return kitserver.Result{Status: http.StatusCreated, Message: "API key rolled; store the new key now, it is not shown again",
				Data: rolledKeyView{Key: viewNewKey(nk), Previous: viewKey(old)}}, err
		}, in.Wrap("roll_key")),
		Usage: kitserver.NewEndpoint(func(ctx context.Context, r usageRequest) (kitserver.Result, error) {
			o, err := acc.Org(ctx, r.OrgID)
			if err != nil {
				return kitserver.Result{}, err
			}
			rep, err := bill.Report(ctx, o.ID, r.Month, o.Plan)
			return kitserver.Result{Message: "Usage retrieved", Data: rep}, err
		}, in.Wrap("usage")),
		PlanPreview: kitserver.NewEndpoint(func(ctx context.Context, r planPreviewRequest) (kitserver.Result, error) {
			o, err := acc.Org(ctx, r.OrgID)
			if err != nil {
				return kitserver.Result{}, err
			}
			p, err := bill.PreviewChange(ctx, o.ID, o.Plan, r.Plan)
			return kitserver.Result{Message: "Plan change priced", Data: p}, err
		}, in.Wrap("plan_preview")),
		Resolve: kitserver.NewEndpoint(func(ctx context.Context, r resolveRequest) (kitserver.Result, error) {
			k, o, err := acc.Resolve(ctx, r.Hash)
			return kitserver.Result{Message: "Key resolved", Data: resolvedKeyView{Key: k, Organization: o}}, err
		}, in.Wrap("resolve_key")),
	}
}
