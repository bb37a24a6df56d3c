// Package httpapi is the customer service's transport: go-kit endpoints
// over the customer use cases and their HTTP routes under /api/v1.
package httpapi

import (
	"context"
	"net/http"

	"github.com/go-kit/kit/endpoint"

	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// Endpoints are the customer operations.
type Endpoints struct {
	Create, Get, List, Update, Delete, AddAddress endpoint.Endpoint
}

type createRequest struct {
	who customer.Caller
	in  customer.CreateInput
}
type idRequest struct {
	who customer.Caller
	id  string
}
type listRequest struct{ q customer.ListQuery }
type updateRequest struct {
	who customer.Caller
	id  string
	in  customer.Fields
}
type addAddressRequest struct {
	who customer.Caller
	id  string
	in  customer.AddressInput
}

// Pagination describes a list page. Totals of searches are exact up to
// 1,000 matches (totalExact tells).
type Pagination struct {
	Page       *int    `json:"page"`
	Limit      int     `json:"limit"`
	Total      int64   `json:"total"`
	TotalPages int64   `json:"totalPages"`
	HasNext    bool    `json:"hasNext"`
	NextCursor *string `json:"nextCursor"`
	TotalExact bool    `json:"totalExact"`
}

// MakeEndpoints builds the endpoints with instrumentation.
func MakeEndpoints(svc *customer.Service, in *kitserver.Instrumenter) Endpoints {
	return Endpoints{
		Create: in.Wrap("create_customer")(func(ctx context.Context, req any) (any, error) {
			r := req.(createRequest)
			c, err := svc.Create(ctx, r.who, r.in)
			return kitserver.Result{Status: http.StatusCreated, Message: "Customer created successfully; field verification has been initiated", Data: customer.ViewOf(c)}, err
		}),
		Get: in.Wrap("get_customer")(func(ctx context.Context, req any) (any, error) {
			r := req.(idRequest)
			c, err := svc.Get(ctx, r.who, r.id)
			return kitserver.Result{Message: "Customer retrieved successfully", Data: customer.ViewOf(c)}, err
		}),
		List: in.Wrap("list_customers")(func(ctx context.Context, req any) (any, error) {
			q := req.(listRequest).q
			p, err := svc.List(ctx, q)
			if err != nil {
				return nil, err
			}
			views := make([]customer.View, len(p.Customers))
			for i, c := range p.Customers {
				views[i] = customer.ViewOf(c)
			}
			pg := Pagination{Limit: q.Limit, Total: p.Total, TotalPages: (p.Total + int64(q.Limit) - 1) / int64(q.Limit),
				HasNext: p.HasNext, TotalExact: p.TotalExact}
			if q.Cursor == nil {
				pg.Page = &q.Page
			}
			if p.NextCursor != "" {
				pg.NextCursor = &p.NextCursor
			}
			return kitserver.Result{Message: "Customers retrieved successfully", Data: map[string]any{"customers": views, "pagination": pg}}, nil
		}),
		Update: in.Wrap("update_customer")(func(ctx context.Context, req any) (any, error) {
			r := req.(updateRequest)
			c, err := svc.Update(ctx, r.who, r.id, r.in)
			return kitserver.Result{Message: "Customer updated successfully", Data: customer.ViewOf(c)}, err
		}),
		Delete: in.Wrap("delete_customer")(func(ctx context.Context, req any) (any, error) {
			r := req.(idRequest)
			err := svc.Delete(ctx, r.who, r.id)
			return kitserver.Result{Message: "Customer deleted successfully", Data: map[string]any{"id": r.id, "deleted": true}}, err
		}),
		AddAddress: in.Wrap("add_address")(func(ctx context.Context, req any) (any, error) {
			r := req.(addAddressRequest)
			c, err := svc.AddAddress(ctx, r.who, r.id, r.in)
			return kitserver.Result{Status: http.StatusCreated, Message: "Address added successfully; field verification has been initiated", Data: customer.ViewOf(c)}, err
		}),
	}
}
