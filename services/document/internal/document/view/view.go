// Package view renders documents as the API (and the document.added
// event) shows them.
package view

import (
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/services/document/internal/document"
)

// View renders documents; hosted files' URLs are under BaseURL (the
// gateway as clients reach it).
type View struct{ BaseURL string }

// Document is a document as the API shows it.
type Document struct {
	ID           string  `json:"id"`
	CustomerID   string  `json:"customerId"`
	DocumentType string  `json:"documentType"`
	FileName     string  `json:"fileName"`
	FileURL      string  `json:"fileUrl"`
	FileType     string  `json:"fileType"`
	FileSize     int64   `json:"fileSize"`
	Verified     bool    `json:"verified"`
	Hosted       bool    `json:"hosted"`
	UploadedAt   *string `json:"uploadedAt"`
	OriginalSize *int64  `json:"originalSize,omitempty"`
	SHA256       string  `json:"sha256,omitempty"`
}

// Of renders d.
func (v View) Of(d document.Document) Document {
	out := Document{ID: d.ID, CustomerID: d.CustomerID, DocumentType: d.DocumentType, FileName: d.FileName,
		FileURL: d.FileURL, FileType: d.FileType, FileSize: d.FileSize, Verified: d.Verified, Hosted: d.Hosted,
		UploadedAt: envelope.Timestamp(d.UploadedAt)}
	if d.Hosted {
		out.FileURL = v.BaseURL + "/api/v1/customers/" + d.CustomerID + "/documents/" + d.ID + "/file"
		out.OriginalSize, out.SHA256 = &d.OriginalSize, d.SHA256
	}
	return out
}

// Receipt is what adding a document answers to a caller that may not
// read customers (kyc:write without kyc:read): the document's id and
// when it was taken, not its name, link or hash.
type Receipt struct {
	ID         string  `json:"id"`
	CustomerID string  `json:"customerId"`
	UploadedAt *string `json:"uploadedAt"`
}

// Written renders d for the caller of the write that added it: in full
// when it may read (reads), as a Receipt otherwise.
func (v View) Written(d document.Document, reads bool) any {
	if reads {
		return v.Of(d)
	}
	return Receipt{ID: d.ID, CustomerID: d.CustomerID, UploadedAt: envelope.Timestamp(d.UploadedAt)}
}
