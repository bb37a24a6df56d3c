package events

import (
	"context"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/document/internal/document"
	"github.com/kycfield/kyc/services/document/internal/document/view"
)

// TypeDocumentAdded is published when a document is appended to a
// customer (POST /api/v1/customers/{id}/documents, either form).
const TypeDocumentAdded = "document.added"

// DocumentAdded is the data of document.added: the document as the API
// shows it. The producer owns it and its schema (api/events/
// document-events.json).
type DocumentAdded struct {
	CustomerID string        `json:"customerId"`
	Document   view.Document `json:"document"`
}

// Publisher makes the event of an added document.
type Publisher struct{ View view.View }

// Of is the event published for d, in its organization and environment;
// the repository writes it to the outbox in the insert's transaction.
func (p Publisher) Of(d document.Document) (event.Event, error) {
	return event.New(TypeDocumentAdded, d.OrgID, d.Env, DocumentAdded{CustomerID: d.CustomerID, Document: p.View.Of(d)})
}

func samples() []event.Sample {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	p := Publisher{View: view.View{BaseURL: "https://api.example.com"}}
	base := document.Document{ID: "doc_019a2b3c4d5e6f708192a3b4c5d6e7f8", CustomerID: "cus_019a2b3c4d5e6f708192a3b4c5d6e7f8",
		OrgID: "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", Env: "live", DocumentType: "UTILITY_BILL", UploadedAt: at}
	link, hosted := base, base
	link.FileName, link.FileURL, link.FileType, link.FileSize = "nepa-bill.pdf", "https://files.example.com/nepa-bill.pdf", "application/pdf", 183204
	hosted.DocumentType, hosted.FileName, hosted.FileType, hosted.FileSize, hosted.Hosted = "ID_CARD", "id.jpg", "image/jpeg", 412345, true
	hosted.OriginalSize, hosted.SHA256, hosted.ObjectKey = 3145728, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "k"
	var out []event.Sample
	for _, d := range []document.Document{link, hosted} {
		e, err := p.Of(d)
		if err != nil {
			panic(err) // a fixed value that cannot be marshalled is a programming error
		}
		out = append(out, event.Sample{Topic: event.TopicDocument, Event: e})
	}
	// A member uploading the hosted file from the dashboard, as the store
	// records it.
	ctx := principal.With(context.Background(), principal.Principal{Kind: principal.KindAPIKey, OrgID: hosted.OrgID, Env: principal.EnvLive,
		UserID: "usr_019a2b3c4d5e6f708192a3b4c5d6e7f8", MemberRole: principal.MemberDeveloper, ClientIP: "203.0.113.7"})
	m, err := orgaudit.Message(ctx, event.TopicOrgAudit, document.ActionUpload, hosted.ID, orgaudit.Done, document.UploadDetails(hosted))
	if err != nil {
		panic(err)
	}
	return append(out, event.Sample{Topic: event.TopicOrgAudit, Event: m.Event})
}
