// Package httpapi is the customer service's transport: go-kit endpoints
// over the customer use cases and their HTTP routes under /api/v1.
package httpapi

import (
	"context"
	"net/http"

	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/services/customer/internal/customer"
	"github.com/kycfield/kyc/services/customer/internal/customer/view"
)

// Endpoints are the customer operations, each typed by its request.
type Endpoints struct {
	Create     kitserver.Endpoint[createRequest]
	Get        kitserver.Endpoint[idRequest]
	List       kitserver.Endpoint[listRequest]
	Update     kitserver.Endpoint[updateRequest]
	Delete     kitserver.Endpoint[idRequest]
	AddAddress kitserver.Endpoint[addAddressRequest]
	Status     kitserver.Endpoint[idRequest]
}

type createRequest struct {
	who   customer.Caller
	reads bool
	in    customer.CreateInput
}
type idRequest struct {
	who customer.Caller
	id  string
}
type listRequest struct{ q customer.ListQuery }
type updateRequest struct {
	who   customer.Caller
	reads bool
	id    string
	in    customer.Fields
}
type addAddressRequest struct {
	who   customer.Caller
	reads bool
	id    string
	in    customer.AddressInput
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
		Create: kitserver.NewEndpoint(func(ctx context.Context, r createRequest) (kitserver.Result, error) {
			c, err := svc.Create(ctx, r.who, r.in)
			return written(r.reads, http.StatusCreated, "Customer created successfully; field verification has been initiated", c, err)
		}, in.Wrap("create_customer")),
		Get: kitserver.NewEndpoint(func(ctx context.Context, r idRequest) (kitserver.Result, error) {
			c, err := svc.Get(ctx, r.who, r.id)
			return shown(http.StatusOK, "Customer retrieved successfully", c, err)
		}, in.Wrap("get_customer")),
		List: kitserver.NewEndpoint(func(ctx context.Context, r listRequest) (kitserver.Result, error) {
			q := r.q
			p, err := svc.List(ctx, q)
			if err != nil {
				return kitserver.Result{}, err
			}
			views := make([]view.Customer, len(p.Customers))
			for i, c := range p.Customers {
				views[i] = view.Of(c)
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
		}, in.Wrap("list_customers")),
		Update: kitserver.NewEndpoint(func(ctx context.Context, r updateRequest) (kitserver.Result, error) {
			c, err := svc.Update(ctx, r.who, r.id, r.in)
			return written(r.reads, http.StatusOK, "Customer updated successfully", c, err)
		}, in.Wrap("update_customer")),
		Delete: kitserver.NewEndpoint(func(ctx context.Context, r idRequest) (kitserver.Result, error) {
			err := svc.Delete(ctx, r.who, r.id)
			return kitserver.Result{Message: "Customer deleted successfully", Data: map[string]any{"id": r.id, "deleted": true}}, err
		}, in.Wrap("delete_customer")),
		AddAddress: kitserver.NewEndpoint(func(ctx context.Context, r addAddressRequest) (kitserver.Result, error) {
			c, err := svc.AddAddress(ctx, r.who, r.id, r.in)
			res, err := written(r.reads, http.StatusCreated, "Address added successfully; field verification has been initiated", c, err)
			if rc, ok := res.Data.(view.Receipt); ok {
				rc.AddressID = c.Addresses[len(c.Addresses)-1].ID
				res.Data = rc
			}
			return res, err
		}, in.Wrap("add_address")),
		Status: kitserver.NewEndpoint(func(ctx context.Context, r idRequest) (kitserver.Result, error) {
			c, err := svc.Status(ctx, r.who, r.id)
			if err != nil {
				return kitserver.Result{}, err
			}
			res := kitserver.Result{Message: "Verification status retrieved successfully", Data: view.StatusOf(c)}
			if !c.Settled() {
				res.Header = http.Header{"Retry-After": {pollAfter(r.who.Env)}}
			}
			return res, nil
		}, in.Wrap("get_verification_status")),
	}
}

// pollAfter is the Retry-After (seconds) of a status still moving: lenders
// poll it, and every poll is a read the pipeline pays for (BENCHMARKS §18:
// above capacity, polls multiplied as the wait grew and took the CPU the
// pipeline needed). A sandbox address is verified within seconds; a live
// one by a field visit, hours away.
func pollAfter(env string) string {
	if env == customer.EnvLive {
		return "60"
	}
	return "1"
}

// written answers a write: with the customer as shown to a caller that
// may read it, with its receipt to one that may not.
func written(reads bool, status int, message string, c customer.Customer, err error) (kitserver.Result, error) {
	if err != nil || reads {
		return shown(status, message, c, err)
	}
	return kitserver.Result{Status: status, Message: message, Data: view.ReceiptOf(c)}, nil
}

// shown answers with the customer as shown, or with err.
func shown(status int, message string, c customer.Customer, err error) (kitserver.Result, error) {
	if err != nil {
		return kitserver.Result{}, err
	}
	return kitserver.Result{Status: status, Message: message, Data: view.Of(c)}, nil
}
