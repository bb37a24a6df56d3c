// Package httpapi is the document service's transport: go-kit endpoints
// for the JSON form and the list, and plain handlers for what streams (the
// multipart upload and the file download).
package httpapi

import (
	"context"
	"net/http"

	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/services/document/internal/document"
	"github.com/kycfield/kyc/services/document/internal/document/view"
)

// Endpoints are the document operations, each typed by its request.
type Endpoints struct {
	AddLink kitserver.Endpoint[addLinkRequest]
	List    kitserver.Endpoint[listRequest]
}

type addLinkRequest struct {
	who        document.Caller
	reads      bool // the caller may read customers: see view.Receipt
	customerID string
	in         document.LinkInput
}

type listRequest struct {
	who        document.Caller
	customerID string
}

// View renders documents (see package view).
type View = view.View

// Document is a document as the API shows it.
type Document = view.Document

// MakeEndpoints builds the endpoints with instrumentation.
func MakeEndpoints(svc *document.Service, v View, in *kitserver.Instrumenter) Endpoints {
	return Endpoints{
		AddLink: kitserver.NewEndpoint(func(ctx context.Context, r addLinkRequest) (kitserver.Result, error) {
			d, err := svc.AddLink(ctx, r.who, r.customerID, r.in)
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Status: http.StatusCreated, Message: "Document added successfully", Data: v.Written(d, r.reads)}, nil
		}, in.Wrap("add_document_link")),
		List: kitserver.NewEndpoint(func(ctx context.Context, r listRequest) (kitserver.Result, error) {
			ds, err := svc.List(ctx, r.who, r.customerID)
			if err != nil {
				return kitserver.Result{}, err
			}
			views := make([]Document, len(ds))
			for i, d := range ds {
				views[i] = v.Of(d)
			}
			return kitserver.Result{Message: "Documents retrieved successfully", Data: map[string]any{"documents": views}}, nil
		}, in.Wrap("list_documents")),
	}
}
