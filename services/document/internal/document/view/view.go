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
