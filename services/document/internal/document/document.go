// Package document is the document context's domain: the documents a
// client attaches to a customer (a link it hosts itself, or a file the
// platform hosts), the rules they obey, and the small read model of which
// customers exist, fed by the customer context's events. It knows nothing
// of HTTP, SQL or the object store.
package document

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/publicurl"
)

// Limits.
const (
	MaxFileName        = 255
	MaxFileSize        = 10 << 20 // bytes, for links and uploads alike
	MaxPerCustomer     = 20
	MaxPixels          = 50_000_000 // an image declaring more is refused by its header
	MaxLongSide        = 2000       // stored images fit in this many pixels
	MaxStored          = 32 << 20   // a re-encoded 2000 px PNG may outgrow its upload
	EnvTest            = "test"     // the sandbox environment
	maxDocumentTypeLen = 64
)

// Error codes of the document context (documented in api/openapi.yaml).
const (
	CodeDocumentLimit      = "DOCUMENT_LIMIT_REACHED"
	CodeFileTooLarge       = "FILE_TOO_LARGE"
	CodeUnsupportedFile    = "UNSUPPORTED_FILE_TYPE"
	CodeInvalidFile        = "INVALID_FILE"
	CodeImageTooLarge      = "IMAGE_TOO_LARGE"
	CodeStorageUnavailable = "STORAGE_UNAVAILABLE"
)

// DocumentTypes are the accepted documentType values.
var DocumentTypes = []string{"ID_CARD", "UTILITY_BILL", "PROOF_OF_ADDRESS", "PASSPORT_PHOTO", "BANK_STATEMENT", "CAC_CERTIFICATE", "OTHER"}

// FileTypes are the accepted MIME types.
var FileTypes = []string{"image/jpeg", "image/png", "image/webp", "application/pdf"}

// Document is one document attached to a customer.
type Document struct {
	ID           string
	CustomerID   string
	OrgID        string
	Env          string
	DocumentType string
	FileName     string
	// FileURL is the client's link; empty for a hosted document, whose
	// URL is the gateway's download route.
	FileURL  string
	FileType string
	// FileSize is the size declared (link) or stored (hosted).
	FileSize   int64
	Verified   bool
	Hosted     bool
	UploadedAt time.Time
	// Hosted documents only.
	OriginalSize int64
	SHA256       string
	ObjectKey    string
}

// Caller is the API key's organization and environment.
type Caller struct{ OrgID, Env string }

// LinkInput is the JSON form: a document the client hosts.
type LinkInput struct {
	FileName     *string `json:"fileName"`
	FileURL      *string `json:"fileUrl"`
	FileType     *string `json:"fileType"`
	FileSize     *int64  `json:"fileSize"`
	DocumentType *string `json:"documentType"`
}

var (
	errLimit = apperr.New(apperr.KindConflict, CodeDocumentLimit,
		fmt.Sprintf("A customer may have at most %d documents", MaxPerCustomer))
	// ErrCustomerNotFound is a customer unknown to the caller.
	ErrCustomerNotFound = apperr.NotFound("Customer")
	// ErrNotFound is a document unknown to the caller.
	ErrNotFound = apperr.NotFound("Document")
	// ErrStorage is the object store failing.
	ErrStorage = errors.New("object store unavailable")
)

// StorageUnavailable reports the object store down.
func StorageUnavailable(err error) error {
	return &apperr.Error{Kind: apperr.KindUnavailable, Code: CodeStorageUnavailable,
		Message: "Document storage is temporarily unavailable; please retry later", Err: err}
}

// CheckLink validates the JSON form for env and returns the document it
// describes (without id and time). Every problem is reported at once.
func CheckLink(in LinkInput, env string) (Document, error) {
	var ck apperr.Checker
	var d Document
	d.DocumentType = checkDocumentType(&ck, in.DocumentType)
	switch {
	case in.FileName == nil:
		ck.Fail("fileName", "is required")
	default:
		if msg := CheckFileName(*in.FileName); msg != "" {
			ck.Fail("fileName", "%s", msg)
		}
		d.FileName = *in.FileName
	}
	switch {
	case in.FileURL == nil:
		ck.Fail("fileUrl", "is required")
	default:
		if msg := publicurl.Check(*in.FileURL, env == EnvTest); msg != "" {
			ck.Fail("fileUrl", "%s", msg)
		}
		d.FileURL = *in.FileURL
	}
	switch {
	case in.FileType == nil:
		ck.Fail("fileType", "is required")
	case !slices.Contains(FileTypes, *in.FileType):
		ck.Fail("fileType", "must be one of %s", strings.Join(FileTypes, ", "))
	default:
		d.FileType = *in.FileType
	}
	switch {
	case in.FileSize == nil:
		ck.Fail("fileSize", "is required")
	case *in.FileSize < 1 || *in.FileSize > MaxFileSize:
		ck.Fail("fileSize", "must be between 1 and %d bytes", MaxFileSize)
	default:
		d.FileSize = *in.FileSize
	}
	return d, ck.Err()
}

// CheckDocumentType validates a documentType value (nil: absent).
func CheckDocumentType(v *string) (string, error) {
	var ck apperr.Checker
	t := checkDocumentType(&ck, v)
	return t, ck.Err()
}

func checkDocumentType(ck *apperr.Checker, v *string) string {
	switch {
	case v == nil:
		ck.Fail("documentType", "is required, one of %s", strings.Join(DocumentTypes, ", "))
	case len(*v) > maxDocumentTypeLen || !slices.Contains(DocumentTypes, *v):
		ck.Fail("documentType", "must be one of %s", strings.Join(DocumentTypes, ", "))
	default:
		return *v
	}
	return ""
}

// CheckFileName returns what is wrong with a file name, or "": 1-255
// characters, valid UTF-8, no path separators or control characters, not
// "." or "..".
func CheckFileName(s string) string {
	n := utf8.RuneCountInString(s)
	switch {
	case n < 1 || n > MaxFileName:
		return fmt.Sprintf("must be 1-%d characters", MaxFileName)
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	case strings.ContainsAny(s, `/\`):
		return "must not contain path separators"
	case strings.TrimSpace(s) == "" || s == "." || s == "..":
		return "must name a file"
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return "must not contain control characters"
		}
	}
	return ""
}

// UploadName is the name recorded for an uploaded file: the name the
// client gave (its base name), or "document" + ext when it is unusable.
func UploadName(given, ext string) string {
	given = path.Base(strings.ReplaceAll(given, `\`, "/"))
	if CheckFileName(given) != "" {
		return "document" + ext
	}
	return given
}
