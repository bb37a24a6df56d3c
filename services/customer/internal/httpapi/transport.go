package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/wiretext"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// Register mounts the customer routes on mux; protect requires an API-key
// principal signed by the gateway (or, for reading one customer, a
// service principal of another context).
func Register(mux *http.ServeMux, e Endpoints, svc *customer.Service, protect func(http.Handler, ...principal.Kind) http.Handler, log *slog.Logger) {
	handle := func(pattern string, h http.Handler) { mux.Handle(pattern, protect(h, principal.KindAPIKey)) }
	handle("POST /api/v1/customers", kitserver.NewHandler(e.Create, decodeCreate, log))
	handle("GET /api/v1/customers", kitserver.NewHandler(e.List, decodeList, log))
	// Other services ask here (HEAD, as a service of the tenant) whether
	// a customer is still there: this context owns deletes.
	mux.Handle("GET /api/v1/customers/{id}", protect(kitserver.NewHandler(e.Get, decodeID, log), principal.KindAPIKey, principal.KindService))
	handle("PUT /api/v1/customers/{id}", kitserver.NewHandler(e.Update, decodeUpdate, log))
	handle("DELETE /api/v1/customers/{id}", kitserver.NewHandler(e.Delete, decodeID, log))
	handle("POST /api/v1/customers/{id}/addresses", kitserver.NewHandler(e.AddAddress, decodeAddAddress, log))
	registerImports(handle, svc, log)
	handle("GET /api/v1/verification/{customerId}/status", kitserver.NewHandler(e.Status,
		func(ctx context.Context, r *http.Request) (idRequest, error) {
			return idRequest{who: caller(ctx), id: r.PathValue("customerId")}, nil
		}, log))
}

func caller(ctx context.Context) customer.Caller {
	p, _ := principal.From(ctx)
	return customer.Caller{OrgID: p.OrgID, Env: string(p.Env), RecordLimit: p.RecordLimit}
}

// reads reports whether the caller may read customers, and so see the
// record its write made (view.Receipt otherwise).
func reads(ctx context.Context) bool {
	p, _ := principal.From(ctx)
	return p.HasScope(principal.ScopeRead)
}

func decodeCreate(ctx context.Context, r *http.Request) (createRequest, error) {
	req := createRequest{who: caller(ctx), reads: reads(ctx)}
	return req, jsonbody.ReadInto(r, maxBody, &req.in, readOnly...)
}

func decodeID(ctx context.Context, r *http.Request) (idRequest, error) {
	return idRequest{who: caller(ctx), id: r.PathValue("id")}, nil
}

func decodeUpdate(ctx context.Context, r *http.Request) (updateRequest, error) {
	req := updateRequest{who: caller(ctx), reads: reads(ctx), id: r.PathValue("id")}
	b, err := jsonbody.Read(r, maxBody)
	if err != nil {
		return req, err
	}
	req.in, err = updateFrom(b)
	return req, err
}

func decodeAddAddress(ctx context.Context, r *http.Request) (addAddressRequest, error) {
	req := addAddressRequest{who: caller(ctx), reads: reads(ctx), id: r.PathValue("id")}
	return req, jsonbody.ReadInto(r, maxBody, &req.in)
}

func decodeList(ctx context.Context, r *http.Request) (listRequest, error) {
	// Every parameter, known or not, as the gateway checks them: a
	// direct call gets the same 400 as one through the edge.
	if err := wiretext.Query(r.URL.RawQuery); err != nil {
		return listRequest{}, err
	}
	qs := r.URL.Query()
	param := func(name string) *string {
		if !qs.Has(name) {
			return nil
		}
		v := qs.Get(name)
		return &v
	}
	q, err := customer.ParseListQuery(caller(ctx), customer.RawListQuery{
		Page: param("page"), Limit: param("limit"), Status: param("status"), Search: param("search"), Cursor: param("cursor")})
	return listRequest{q: q}, err
}
