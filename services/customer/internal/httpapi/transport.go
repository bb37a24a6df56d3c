package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	kithttp "github.com/go-kit/kit/transport/http"

	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// Register mounts the customer routes on mux; protect requires an API-key
// principal signed by the gateway.
func Register(mux *http.ServeMux, e Endpoints, protect func(http.Handler, ...principal.Kind) http.Handler, log *slog.Logger) {
	route := func(pattern string, ep func(context.Context, any) (any, error), dec kithttp.DecodeRequestFunc) {
		mux.Handle(pattern, protect(kitserver.NewServer(ep, dec, log), principal.KindAPIKey))
	}
	route("POST /api/v1/customers", e.Create, decodeCreate)
	route("GET /api/v1/customers", e.List, decodeList)
	route("GET /api/v1/customers/{id}", e.Get, decodeID)
	route("PUT /api/v1/customers/{id}", e.Update, decodeUpdate)
	route("DELETE /api/v1/customers/{id}", e.Delete, decodeID)
	route("POST /api/v1/customers/{id}/addresses", e.AddAddress, decodeAddAddress)
}

func caller(ctx context.Context) customer.Caller {
	p, _ := principal.From(ctx)
	return customer.Caller{OrgID: p.OrgID, Env: string(p.Env), RecordLimit: p.RecordLimit}
}

func decodeCreate(ctx context.Context, r *http.Request) (any, error) {
	b, err := jsonbody.Read(r, maxBody)
	if err != nil {
		return nil, err
	}
	in, err := createFrom(b)
	return createRequest{who: caller(ctx), in: in}, err
}

func decodeID(ctx context.Context, r *http.Request) (any, error) {
	return idRequest{who: caller(ctx), id: r.PathValue("id")}, nil
}

func decodeUpdate(ctx context.Context, r *http.Request) (any, error) {
	b, err := jsonbody.Read(r, maxBody)
	if err != nil {
		return nil, err
	}
	in, err := updateFrom(b)
	return updateRequest{who: caller(ctx), id: r.PathValue("id"), in: in}, err
}

func decodeAddAddress(ctx context.Context, r *http.Request) (any, error) {
	b, err := jsonbody.Read(r, maxBody)
	if err != nil {
		return nil, err
	}
	in, err := addressFrom(b)
	return addAddressRequest{who: caller(ctx), id: r.PathValue("id"), in: in}, err
}

func decodeList(ctx context.Context, r *http.Request) (any, error) {
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
