package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// statusRead is the status poll's one statement: the customer's row with
// its addresses' and documents' columns aggregated beside it, one array a
// column in position order. One statement reads one snapshot (READ
// COMMITTED takes it per statement, subqueries included), so an address
// and the customer's status, which the verification consumer moves in one
// transaction, are never seen apart, without the BEGIN, three SELECTs and
// COMMIT of Get (BENCHMARKS §18: lenders' polls multiply as the
// pipeline's wait grows). It reads only what view.StatusOf shows: no
// personal fields, so no BVN/NIN to decrypt. Arrays rather than JSON: the
// columns arrive in binary, and verificationData is copied, not parsed.
const statusRead = `SELECT c.id, c.first_name, c.last_name, c.status, coalesce(c.loan_id, ''), coalesce(c.loan_type, ''),
	coalesce(c.report_url, ''), c.verification_date,
	a.ids, a.labels, a.street_numbers, a.street_names, a.landmarks, a.cities, a.lgas, a.states, a.countries, a.notes,
	a.statuses, a.data, a.due_by,
	d.ids, d.types, d.names, d.urls, d.file_types, d.sizes, d.verified, d.uploaded_at
FROM customers c
CROSS JOIN LATERAL (SELECT array_agg(id ORDER BY position) AS ids, array_agg(label ORDER BY position) AS labels,
	array_agg(street_number ORDER BY position) AS street_numbers, array_agg(street_name ORDER BY position) AS street_names,
	array_agg(landmark ORDER BY position) AS landmarks, array_agg(city ORDER BY position) AS cities,
	array_agg(lga ORDER BY position) AS lgas, array_agg(state ORDER BY position) AS states,
	array_agg(country ORDER BY position) AS countries, array_agg(notes ORDER BY position) AS notes,
	array_agg(status ORDER BY position) AS statuses, array_agg(verification_data ORDER BY position) AS data,
	array_agg(due_by ORDER BY position) AS due_by
	FROM addresses WHERE customer_id = c.id) a
CROSS JOIN LATERAL (SELECT array_agg(id ORDER BY position) AS ids, array_agg(document_type ORDER BY position) AS types,
	array_agg(file_name ORDER BY position) AS names, array_agg(file_url ORDER BY position) AS urls,
	array_agg(file_type ORDER BY position) AS file_types, array_agg(file_size ORDER BY position) AS sizes,
	array_agg(verified ORDER BY position) AS verified, array_agg(uploaded_at ORDER BY position) AS uploaded_at
	FROM documents WHERE customer_id = c.id) d
WHERE c.id = $1 AND c.org_id = $2 AND c.env = $3 AND c.deleted_at IS NULL`

// statusAddresses are the address columns statusRead aggregates, one
// slice a column (an aggregate over no rows is NULL: nil slices).
type statusAddresses struct {
	ids, labels, streetNumbers, streetNames, landmarks, cities, lgas, states, countries, notes, statuses []string
	data                                                                                                 [][]byte
	dueBy                                                                                                []pgtype.Timestamptz
}

func (a *statusAddresses) targets() []any {
	return []any{&a.ids, &a.labels, &a.streetNumbers, &a.streetNames, &a.landmarks, &a.cities, &a.lgas, &a.states, &a.countries,
		&a.notes, &a.statuses, &a.data, &a.dueBy}
}

func (a *statusAddresses) list() []customer.Address {
	out := make([]customer.Address, len(a.ids))
	for i := range a.ids {
		out[i] = customer.Address{ID: a.ids[i], Label: a.labels[i], StreetNumber: a.streetNumbers[i], StreetName: a.streetNames[i],
			Landmark: a.landmarks[i], City: a.cities[i], LGA: a.lgas[i], State: a.states[i], Country: a.countries[i],
			Notes: a.notes[i], Status: a.statuses[i], VerificationData: a.data[i]}
		if a.dueBy[i].Valid {
			t := a.dueBy[i].Time
			out[i].DueBy = &t
		}
	}
	return out
}

// statusDocuments are the document columns statusRead aggregates.
type statusDocuments struct {
	ids, types, names, urls, fileTypes []string
	sizes                              []int64
	verified                           []bool
	uploadedAt                         []time.Time
}

func (d *statusDocuments) targets() []any {
	return []any{&d.ids, &d.types, &d.names, &d.urls, &d.fileTypes, &d.sizes, &d.verified, &d.uploadedAt}
}

func (d *statusDocuments) list() []customer.Document {
	out := make([]customer.Document, len(d.ids))
	for i := range d.ids {
		out[i] = customer.Document{ID: d.ids[i], DocumentType: d.types[i], FileName: d.names[i], FileURL: d.urls[i],
			FileType: d.fileTypes[i], FileSize: d.sizes[i], Verified: d.verified[i], UploadedAt: d.uploadedAt[i]}
	}
	return out
}

// Status reads a live customer's verification status in one statement:
// the fields view.StatusOf shows (name, status, loan, report, verification
// date, addresses, documents); the others are left empty.
func (s *Store) Status(ctx context.Context, orgID, env, id string) (customer.Customer, error) {
	var c customer.Customer
	var addresses statusAddresses
	var documents statusDocuments
	dest := append([]any{&c.ID, &c.FirstName, &c.LastName, &c.Status, &c.LoanID, &c.LoanType, &c.ReportURL, &c.VerificationDate},
		addresses.targets()...)
	err := s.Pool().QueryRow(ctx, statusRead, id, orgID, env).Scan(append(dest, documents.targets()...)...)
	if pgdb.IsNoRows(err) {
		return c, customer.ErrNotFound
	}
	if err != nil {
		return c, translate(err)
	}
	c.OrgID, c.Env = orgID, env
	c.Addresses, c.Documents = addresses.list(), documents.list()
	return c, nil
}
