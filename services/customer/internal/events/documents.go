package events

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// TypeDocumentAdded is published by the document context when a document
// is appended to a customer.
const TypeDocumentAdded = "document.added"

// DocumentAdded is the data of document.added that this context reads.
type DocumentAdded struct {
	CustomerID string `json:"customerId"`
	Document   struct {
		ID           string    `json:"id"`
		DocumentType string    `json:"documentType"`
		FileName     string    `json:"fileName"`
		FileURL      string    `json:"fileUrl"`
		FileType     string    `json:"fileType"`
		FileSize     int64     `json:"fileSize"`
		Verified     bool      `json:"verified"`
		UploadedAt   time.Time `json:"uploadedAt"`
	} `json:"document"`
}

// Documents adds the documents appended through the document context to
// the customers they belong to, so the customer read shows them.
func Documents(svc *customer.Service, within func(pgx.Tx) customer.Tx) inbox.Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if e.Type != TypeDocumentAdded {
			return nil
		}
		var d DocumentAdded
		if err := json.Unmarshal(e.Data, &d); err != nil || d.CustomerID == "" {
			return inbox.Permanent(fmt.Errorf("decode %s: customerId missing or %v", e.Type, err))
		}
		doc := d.Document
		_, err := svc.ApplyDocumentAdded(ctx, within(tx), e.OrgID, e.Environment, d.CustomerID, customer.Document{
			ID: doc.ID, DocumentType: doc.DocumentType, FileName: doc.FileName, FileURL: doc.FileURL, FileType: doc.FileType,
			FileSize: doc.FileSize, Verified: doc.Verified, UploadedAt: doc.UploadedAt.UTC()})
		if ae, ok := apperr.As(err); ok && ae.Kind == apperr.KindInvalid {
			return inbox.Permanent(err)
		}
		return err
	}
}
