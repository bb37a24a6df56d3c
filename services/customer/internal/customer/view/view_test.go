package view

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// The shape clients and event consumers rely on: every field present,
// null when unset, BVN and NIN masked, times in UTC.
func TestOfRendersEveryFieldMaskedAndNullWhenUnset(t *testing.T) {
	at := time.Date(2026, 11, 2, 9, 30, 0, 0, time.FixedZone("WAT", 3600))
	c := customer.Customer{ID: "cus_1", FirstName: "Ngozi", LastName: "Okafor", Phone: "+2348031234567", BVN: "22212345678",
		Status: customer.StatusPending, SubmittedAt: at, CreatedAt: at, UpdatedAt: at,
		Addresses: []customer.Address{{ID: "adr_1", StreetName: "Allen Avenue", City: "Ikeja", State: "Lagos", Country: "Nigeria", Status: customer.AddressPending}},
		Documents: []customer.Document{{ID: "doc_1", DocumentType: "ID_CARD", UploadedAt: at}}}
	got, err := json.Marshal(Of(c))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"id":"cus_1","firstName":"Ngozi","lastName":"Okafor","phone":"+2348031234567","email":null,"occupation":null,` +
		`"bvn":"***5678","nin":null,"passportNumber":null,"loanId":null,"loanType":null,` +
		`"addresses":[{"id":"adr_1","label":null,"streetNumber":null,"streetName":"Allen Avenue","landmark":null,"city":"Ikeja",` +
		`"lga":null,"state":"Lagos","country":"Nigeria","notes":null,` +
		`"expectedLocation":{"latitude":6.59651,"longitude":3.34205,"precision":"TOWN"},"status":"PENDING","verificationData":null,"dueBy":null}],` +
		`"documents":[{"id":"doc_1","fileName":null,"fileUrl":null,"fileType":null,"fileSize":null,"documentType":"ID_CARD",` +
		`"uploadedAt":"2026-11-02T08:30:00.000Z","verified":false}],"relogReason":null,"status":"PENDING","reportUrl":null,` +
		`"verificationDate":null,"submittedAt":"2026-11-02T08:30:00.000Z","createdAt":"2026-11-02T08:30:00.000Z","updatedAt":"2026-11-02T08:30:00.000Z"}`
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	empty, _ := json.Marshal(Of(customer.Customer{}))
	var m map[string]any
	if err := json.Unmarshal(empty, &m); err != nil || m["addresses"] == nil || m["documents"] == nil {
		t.Fatalf("lists must be [] rather than null: %s", empty)
	}
}

func TestOfAddressCarriesVerificationData(t *testing.T) {
	a := OfAddress(customer.Address{ID: "adr_1", Status: customer.AddressVerified, VerificationData: []byte(`{"verifiedLatitude":6.6}`)})
	if string(a.VerificationData) != `{"verifiedLatitude":6.6}` || a.Label != nil {
		t.Fatalf("got %+v", a)
	}
}

// An address stored before intake checks, in a state the gazetteer does
// not know, still reads: its expected location is null.
func TestOfAddressWithoutExpectedLocation(t *testing.T) {
	a := OfAddress(customer.Address{ID: "adr_1", City: "Atlantis", State: "Atlantis", Status: customer.AddressPending})
	b, err := json.Marshal(a)
	if err != nil || a.ExpectedLocation != nil || !strings.Contains(string(b), `"expectedLocation":null`) {
		t.Fatalf("got %s, %v", b, err)
	}
}
