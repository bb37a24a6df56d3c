package httpapi

import (
	"slices"
	"sort"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// maxBody bounds JSON bodies (the gateway enforces the same limit).
const maxBody = 1 << 20

var personalFields = []string{"firstName", "lastName", "phone", "email", "occupation", "bvn", "nin", "passportNumber", "loanId", "loanType"}

var readOnlyFields = []string{"id", "status", "reportUrl", "verificationDate", "submittedAt", "createdAt", "updatedAt"}

var addressFields = []string{"label", "streetNumber", "streetName", "landmark", "city", "lga", "state", "country", "notes"}

var documentFields = []string{"fileName", "fileUrl", "fileType", "fileSize", "documentType"}

func str(b *jsonbody.Object, name string) customer.Field[string] {
	f := customer.Field[string]{Set: b.Has(name), Null: b.IsNull(name)}
	if f.Set && !f.Null {
		v, ok := b.String(name)
		f.V, f.Bad = v, !ok
	}
	return f
}

func integer(b *jsonbody.Object, name string) customer.Field[int64] {
	f := customer.Field[int64]{Set: b.Has(name), Null: b.IsNull(name)}
	if f.Set && !f.Null {
		v, ok := b.Int(name)
		f.V, f.Bad = v, !ok
	}
	return f
}

func personal(b *jsonbody.Object) customer.Fields {
	return customer.Fields{
		FirstName: str(b, "firstName"), LastName: str(b, "lastName"), Phone: str(b, "phone"), Email: str(b, "email"),
		Occupation: str(b, "occupation"), BVN: str(b, "bvn"), NIN: str(b, "nin"), PassportNumber: str(b, "passportNumber"),
		LoanID: str(b, "loanId"), LoanType: str(b, "loanType"),
	}
}

// rejectFields reports fields outside allowed, saying why for the ones a
// client may plausibly send by mistake.
func rejectFields(b *jsonbody.Object, allowed []string, explain map[string]string) {
	for _, f := range readOnlyFields {
		if b.Has(f) {
			b.Fail(f, "is read-only")
		}
	}
	explained := make([]string, 0, len(explain))
	for f := range explain {
		explained = append(explained, f)
	}
	sort.Strings(explained)
	for _, f := range explained {
		if b.Has(f) {
			b.Fail(f, explain[f])
		}
	}
	b.RejectUnknown(slices.Concat(allowed, readOnlyFields, explained)...)
}

func address(b *jsonbody.Object) customer.AddressInput {
	b.RejectUnknown(addressFields...)
	return customer.AddressInput{Label: str(b, "label"), StreetNumber: str(b, "streetNumber"), StreetName: str(b, "streetName"),
		Landmark: str(b, "landmark"), City: str(b, "city"), LGA: str(b, "lga"), State: str(b, "state"),
		Country: str(b, "country"), Notes: str(b, "notes")}
}

// DecodeCreate turns a POST /customers body into a CreateInput; type and
// unknown-field problems are returned together as one validation error.
func DecodeCreate(raw []byte) (customer.CreateInput, error) {
	b, err := jsonbody.Parse(raw)
	if err != nil {
		return customer.CreateInput{}, err
	}
	return createFrom(b)
}

func createFrom(b *jsonbody.Object) (customer.CreateInput, error) {
	rejectFields(b, append(append([]string{}, personalFields...), "addresses", "documents", "relogReason"), nil)
	in := customer.CreateInput{Fields: personal(b), RelogReason: str(b, "relogReason")}
	if b.Has("addresses") && !b.IsNull("addresses") {
		objs, ok := b.Objects("addresses")
		in.Addresses = customer.Field[[]customer.AddressInput]{Set: true, Bad: !ok, V: []customer.AddressInput{}}
		for _, o := range objs {
			in.Addresses.V = append(in.Addresses.V, address(o))
		}
	}
	if b.Has("documents") && !b.IsNull("documents") {
		objs, ok := b.Objects("documents")
		in.Documents = customer.Field[[]customer.DocumentInput]{Set: true, Bad: !ok, V: []customer.DocumentInput{}}
		for _, o := range objs {
			o.RejectUnknown(documentFields...)
			in.Documents.V = append(in.Documents.V, customer.DocumentInput{FileName: str(o, "fileName"), FileURL: str(o, "fileUrl"),
				FileType: str(o, "fileType"), FileSize: integer(o, "fileSize"), DocumentType: str(o, "documentType")})
		}
	}
	if errs := b.Errors(); len(errs) > 0 {
		return in, apperr.Validation(errs...)
	}
	return in, nil
}

func updateFrom(b *jsonbody.Object) (customer.Fields, error) {
	rejectFields(b, personalFields, map[string]string{
		"addresses":   "cannot be changed with PUT; append one with POST /api/v1/customers/{id}/addresses",
		"documents":   "cannot be changed with PUT; append one with POST /api/v1/customers/{id}/documents",
		"relogReason": "can only be sent when creating a customer",
	})
	in := personal(b)
	if b.Len() == 0 {
		b.Fail("body", "must contain at least one field to update")
	}
	if errs := b.Errors(); len(errs) > 0 {
		return in, apperr.Validation(errs...)
	}
	return in, nil
}

func addressFrom(b *jsonbody.Object) (customer.AddressInput, error) {
	in := address(b)
	if errs := b.Errors(); len(errs) > 0 {
		return in, apperr.Validation(errs...)
	}
	return in, nil
}
