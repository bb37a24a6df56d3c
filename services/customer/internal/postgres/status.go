package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// statusRead is the status poll's one statement: the customer's row with
// its addresses and documents aggregated beside it. One statement reads
// one snapshot (READ COMMITTED takes it per statement, subqueries
// included), so an address and the customer's status, which the
// verification consumer moves in one transaction, are never seen apart,
// without the BEGIN, three SELECTs and COMMIT of Get (BENCHMARKS §18:
// lenders' polls multiply as the pipeline's wait grows). It reads only
// what view.StatusOf shows: no personal fields, so no BVN/NIN to decrypt.
const statusRead = `SELECT c.id, c.first_name, c.last_name, c.status, coalesce(c.loan_id, ''), coalesce(c.loan_type, ''),
	coalesce(c.report_url, ''), c.verification_date,
	(SELECT coalesce(json_agg(json_build_object('id', a.id, 'label', a.label, 'streetNumber', a.street_number,
		'streetName', a.street_name, 'landmark', a.landmark, 'city', a.city, 'lga', a.lga, 'state', a.state,
		'country', a.country, 'notes', a.notes, 'status', a.status, 'verificationData', a.verification_data,
		'dueBy', a.due_by) ORDER BY a.position), '[]') FROM addresses a WHERE a.customer_id = c.id),
	(SELECT coalesce(json_agg(json_build_object('id', d.id, 'documentType', d.document_type, 'fileName', d.file_name,
		'fileUrl', d.file_url, 'fileType', d.file_type, 'fileSize', d.file_size, 'verified', d.verified,
		'uploadedAt', d.uploaded_at) ORDER BY d.position), '[]') FROM documents d WHERE d.customer_id = c.id)
FROM customers c WHERE c.id = $1 AND c.org_id = $2 AND c.env = $3 AND c.deleted_at IS NULL`

// statusAddress and statusDocument are the rows statusRead aggregates.
type statusAddress struct {
	ID               string          `json:"id"`
	Label            string          `json:"label"`
	StreetNumber     string          `json:"streetNumber"`
	StreetName       string          `json:"streetName"`
	Landmark         string          `json:"landmark"`
	City             string          `json:"city"`
	LGA              string          `json:"lga"`
	State            string          `json:"state"`
	Country          string          `json:"country"`
	Notes            string          `json:"notes"`
	Status           string          `json:"status"`
	VerificationData json.RawMessage `json:"verificationData"`
	DueBy            *time.Time      `json:"dueBy"`
}

type statusDocument struct {
	ID           string    `json:"id"`
	DocumentType string    `json:"documentType"`
	FileName     string    `json:"fileName"`
	FileURL      string    `json:"fileUrl"`
	FileType     string    `json:"fileType"`
	FileSize     int64     `json:"fileSize"`
	Verified     bool      `json:"verified"`
	UploadedAt   time.Time `json:"uploadedAt"`
}

// Status reads a live customer's verification status in one statement:
// the fields view.StatusOf shows (name, status, loan, report, verification
// date, addresses, documents); the others are left empty.
func (s *Store) Status(ctx context.Context, orgID, env, id string) (customer.Customer, error) {
	var c customer.Customer
	var addresses, documents []byte
	err := s.Pool().QueryRow(ctx, statusRead, id, orgID, env).Scan(&c.ID, &c.FirstName, &c.LastName, &c.Status, &c.LoanID,
		&c.LoanType, &c.ReportURL, &c.VerificationDate, &addresses, &documents)
	if pgdb.IsNoRows(err) {
		return c, customer.ErrNotFound
	}
	if err != nil {
		return c, translate(err)
	}
	c.OrgID, c.Env = orgID, env
	if c.Addresses, err = statusAddresses(addresses); err != nil {
		return c, err
	}
	c.Documents, err = statusDocuments(documents)
	return c, err
}

func statusAddresses(b []byte) ([]customer.Address, error) {
	var rows []statusAddress
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("status addresses: %w", err)
	}
	out := make([]customer.Address, len(rows))
	for i, a := range rows {
		out[i] = customer.Address{ID: a.ID, Label: a.Label, StreetNumber: a.StreetNumber, StreetName: a.StreetName,
			Landmark: a.Landmark, City: a.City, LGA: a.LGA, State: a.State, Country: a.Country, Notes: a.Notes,
			Status: a.Status, DueBy: a.DueBy}
		// A JSON null is no verification data, as a NULL column is to Get.
		if string(a.VerificationData) != "null" {
			out[i].VerificationData = a.VerificationData
		}
	}
	return out, nil
}

func statusDocuments(b []byte) ([]customer.Document, error) {
	var rows []statusDocument
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("status documents: %w", err)
	}
	out := make([]customer.Document, len(rows))
	for i, d := range rows {
		out[i] = customer.Document{ID: d.ID, DocumentType: d.DocumentType, FileName: d.FileName, FileURL: d.FileURL,
			FileType: d.FileType, FileSize: d.FileSize, Verified: d.Verified, UploadedAt: d.UploadedAt}
	}
	return out, nil
}
