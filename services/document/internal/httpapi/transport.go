package httpapi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/document/internal/document"
	"github.com/kycfield/kyc/services/document/internal/files"
)

// Body limits: the JSON form is small; a multipart body is the file plus
// a little room for the other part and the framing.
const (
	maxJSON      = 1 << 20
	maxMultipart = document.MaxFileSize + 1<<20
	maxFieldPart = 256
)

// Uploads are what the upload handler needs besides the service.
type Uploads struct {
	// Dir is where uploads are spooled ("" for the system's temp dir).
	Dir string
}

// Register mounts the document routes on mux; protect requires an API-key
// principal signed by the gateway.
func Register(mux *http.ServeMux, e Endpoints, svc *document.Service, v View, up Uploads,
	protect func(http.Handler, ...principal.Kind) http.Handler, log *slog.Logger) {
	handle := func(pattern string, h http.Handler) { mux.Handle(pattern, protect(h, principal.KindAPIKey)) }
	link := kitserver.NewHandler(e.AddLink, decodeAddLink, log)
	upload := uploadHandler(svc, v, up, log)
	handle("POST /api/v1/customers/{id}/documents", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		switch {
		case mt == "multipart/form-data":
			upload.ServeHTTP(w, r)
		case r.Header.Get("Content-Type") == "" || mt == "application/json" || strings.HasSuffix(mt, "+json"):
			link.ServeHTTP(w, r)
		default:
			envelope.Fail(r.Context(), w, log, apperr.New(apperr.KindUnsupported, apperr.CodeUnsupportedMedia,
				"Send the document as application/json (a link) or multipart/form-data (a file)"))
		}
	}))
	handle("GET /api/v1/customers/{id}/documents", kitserver.NewHandler(e.List, decodeList, log))
	handle("GET /api/v1/customers/{id}/documents/{docId}/file", fileHandler(svc, log))
}

func caller(ctx context.Context) document.Caller {
	p, _ := principal.From(ctx)
	return document.Caller{OrgID: p.OrgID, Env: string(p.Env)}
}

// reads reports whether the caller may read customers, and so see the
// document its write added in full.
func reads(ctx context.Context) bool {
	p, _ := principal.From(ctx)
	return p.HasScope(principal.ScopeRead)
}

func decodeAddLink(ctx context.Context, r *http.Request) (addLinkRequest, error) {
	req := addLinkRequest{who: caller(ctx), reads: reads(ctx), customerID: r.PathValue("id")}
	b, err := jsonbody.Read(r, maxJSON)
	if err != nil {
		return req, err
	}
	req.in, err = DecodeLink(b)
	return req, err
}

// DecodeLink reads the JSON form; unknown and mistyped members are
// validation errors naming the field.
func DecodeLink(o *jsonbody.Object) (document.LinkInput, error) {
	var in document.LinkInput
	o.Into(&in, jsonbody.Refused{Field: "id", Message: "is read-only"},
		jsonbody.Refused{Field: "uploadedAt", Message: "is read-only"},
		jsonbody.Refused{Field: "verified", Message: "is read-only"})
	return in, o.Err()
}

func decodeList(ctx context.Context, r *http.Request) (listRequest, error) {
	return listRequest{who: caller(ctx), customerID: r.PathValue("id")}, nil
}

// uploadHandler streams a multipart upload (parts file and documentType,
// in either order) to a spool file, then checks, optimises and stores it.
func uploadHandler(svc *document.Service, v View, up Uploads, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		fail := func(err error) { envelope.Fail(ctx, w, log, err) }
		who, customerID := caller(ctx), r.PathValue("id")
		if err := svc.CanAdd(ctx, who, customerID); err != nil {
			fail(err)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxMultipart)
		mr, err := r.MultipartReader()
		if err != nil {
			fail(apperr.New(apperr.KindUnsupported, apperr.CodeUnsupportedMedia, "Send the file as multipart/form-data"))
			return
		}
		var spool *os.File
		defer func() { files.Discard(spool) }()
		var size int64
		var name string
		var docType *string
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				fail(tooLargeOr(err, apperr.New(apperr.KindInvalid, apperr.CodeValidation, "The multipart body could not be read")))
				return
			}
			switch part.FormName() {
			case "file":
				if spool != nil {
					fail(apperr.Validation(apperr.Detail{Field: "file", Message: "must be sent once"}))
					return
				}
				name = part.FileName()
				if spool, size, err = files.Spool(up.Dir, part); err != nil {
					fail(tooLargeOr(err, apperr.New(apperr.KindInvalid, apperr.CodeValidation, "The file could not be read")))
					return
				}
			case "documentType":
				b, err := io.ReadAll(io.LimitReader(part, maxFieldPart+1))
				if err != nil || len(b) > maxFieldPart {
					fail(tooLargeOr(err, apperr.Validation(apperr.Detail{Field: "documentType", Message: "must be a short text field"})))
					return
				}
				s := strings.TrimSpace(string(b))
				docType = &s
			default:
				fail(apperr.Validation(apperr.Detail{Field: part.FormName(), Message: "unknown field; send file and documentType"}))
				return
			}
		}
		var details []apperr.Detail
		if spool == nil {
			details = append(details, apperr.Detail{Field: "file", Message: "is required: the document as a file part"})
		}
		dt, err := document.CheckDocumentType(docType)
		if e, ok := apperr.As(err); ok {
			details = append(details, e.Details...)
		}
		if len(details) > 0 {
			fail(apperr.Validation(details...))
			return
		}
		f, err := files.Prepare(ctx, spool, size, name)
		if err != nil {
			fail(err)
			return
		}
		d, err := svc.AddFile(ctx, who, customerID, dt, f)
		if err != nil {
			fail(err)
			return
		}
		envelope.OK(ctx, w, http.StatusCreated, "Document stored", v.Written(d, reads(ctx)))
	})
}

func tooLargeOr(err, other error) error {
	var mbe *http.MaxBytesError
	if errors.Is(err, files.ErrTooLarge) || errors.As(err, &mbe) {
		return files.TooLarge()
	}
	return other
}

// fileHandler streams a hosted document of the caller's; anyone else's is
// 404. A document's bytes never change, so its SHA-256 is a strong ETag.
func fileHandler(svc *document.Service, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		var d document.Document
		var body io.ReadCloser
		err := kitserver.RetryRead(ctx, log, func() (err error) {
			d, body, err = svc.Open(ctx, caller(ctx), r.PathValue("id"), r.PathValue("docId"))
			return err
		})
		if err != nil {
			envelope.Fail(ctx, w, log, err)
			return
		}
		defer body.Close()
		etag := `"` + d.SHA256 + `"`
		if r.Header.Get("If-None-Match") == etag {
			w.Header().Set("ETag", etag)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		// The store's reader connects lazily: peek so that a store that is
		// down is a 503, not a broken 200.
		br := bufio.NewReaderSize(body, 32<<10)
		if _, err := br.Peek(1); err != nil {
			envelope.Fail(ctx, w, log, document.StorageUnavailable(fmt.Errorf("document %s: %w", d.ID, err)))
			return
		}
		h := w.Header()
		h.Set("Content-Type", d.FileType)
		h.Set("Content-Length", strconv.FormatInt(d.FileSize, 10))
		h.Set("ETag", etag)
		h.Set("Cache-Control", "private, max-age=86400, immutable")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": downloadName(d)}))
		if _, err := io.Copy(w, br); err != nil {
			log.WarnContext(ctx, "document download interrupted", "document", d.ID, "err", err)
		}
	})
}

// downloadName is the client's file name with the extension of the type
// stored (a PNG sent as scan.pdf downloads as scan.png).
func downloadName(d document.Document) string {
	ext := map[string]string{"image/jpeg": ".jpg", "image/png": ".png", "application/pdf": ".pdf"}[d.FileType]
	return strings.TrimSuffix(d.FileName, path.Ext(d.FileName)) + ext
}
