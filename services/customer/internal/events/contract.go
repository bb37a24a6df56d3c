package events

import (
	"context"
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// Contract is the customer context's side of the event contracts: samples
// of what it publishes, made by the same code as the real events, and
// what its subscriptions read.
func Contract() event.Contract {
	return event.Contract{
		Samples: samples,
		Reads:   inbox.Reads(Subscriptions(nil, nil)...),
	}
}

func samples() []event.Sample {
	at := time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)
	addr := customer.Address{ID: "adr_019a2b3c4d5e6f708192a3b4c5d6e7f8", StreetNumber: "12", StreetName: "Adeola Odeku Street",
		Landmark: "Opposite the filling station", City: "Victoria Island", LGA: "Eti Osa", State: "Lagos", Country: "Nigeria",
		Notes: "Blue gate", Status: customer.AddressPending, CreatedAt: at, UpdatedAt: at}
	c := customer.Customer{ID: "cus_019a2b3c4d5e6f708192a3b4c5d6e7f8", OrgID: "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", Env: customer.EnvTest,
		FirstName: "Ngozi", LastName: "Okafor", Phone: "+2348031234567", Email: "ngozi@example.com", Occupation: "Trader",
		BVN: "22212345678", NIN: "12345678901", LoanID: "LN-2026-001", LoanType: "PERSONAL", Status: customer.StatusPending,
		SubmittedAt: at, CreatedAt: at, UpdatedAt: at, Addresses: []customer.Address{addr},
		Documents: []customer.Document{{ID: "doc_019a2b3c4d5e6f708192a3b4c5d6e7f8", FileName: "id.jpg", FileURL: "https://files.example.com/id.jpg",
			FileType: "image/jpeg", FileSize: 52311, DocumentType: "ID_CARD", UploadedAt: at}}}
	deleted := c
	deleted.DeletedAt = &at
	changes := []customer.Change{
		{Type: customer.EventCreated, Customer: c},
		{Type: customer.EventUpdated, Customer: c, Changed: []string{"email", "occupation"}},
		{Type: customer.EventAddressAdded, Customer: c, Address: &addr},
		{Type: customer.EventDeleted, Customer: deleted},
	}
	out := make([]event.Sample, 0, len(changes))
	for _, ch := range changes {
		e, err := Of(ch)
		if err != nil {
			panic(err) // a fixed value that cannot be marshalled is a programming error
		}
		out = append(out, event.Sample{Topic: event.TopicCustomer, Event: e})
	}
	return append(out, auditSamples(c.ID)...)
}

// auditSamples are lenders' actions as this service records them (pkg/
// orgaudit, with the details the use cases give): a member updating a
// customer from the dashboard, and a key starting an import.
func auditSamples(customerID string) []event.Sample {
	member := principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", Env: principal.EnvLive,
		UserID: "usr_019a2b3c4d5e6f708192a3b4c5d6e7f8", MemberRole: principal.MemberAdmin, ClientIP: "203.0.113.7"}
	key := principal.Principal{Kind: principal.KindAPIKey, OrgID: member.OrgID, Env: principal.EnvLive,
		KeyID: "key_019a2b3c4d5e6f708192a3b4c5d6e7f8", ClientIP: "198.51.100.4"}
	var out []event.Sample
	for _, s := range []struct {
		p principal.Principal
		a customer.Audit
	}{
		{member, customer.Audit{Action: customer.ActionUpdate, Target: customerID, Details: map[string]any{"fields": []string{"email", "occupation"}}}},
		{key, customer.Audit{Action: customer.ActionImportStart, Target: "imp_019a2b3c4d5e6f708192a3b4c5d6e7f8", Details: map[string]any{"rows": 993}}},
	} {
		m, err := orgaudit.Message(principal.With(context.Background(), s.p), event.TopicOrgAudit, s.a.Action, s.a.Target, orgaudit.Done, s.a.Details)
		if err != nil {
			panic(err)
		}
		out = append(out, event.Sample{Topic: event.TopicOrgAudit, Event: m.Event})
	}
	return out
}
