package events

import (
	"time"

	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/inbox"
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
	return out
}
