package httpapi

import (
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/jsonbody"
	"github.com/kycfield/kyc/pkg/optional"
	"github.com/kycfield/kyc/pkg/wiretext"
	"github.com/kycfield/kyc/services/customer/internal/customer"
)

// The bulk import's routes (/api/v1/imports): the template, the upload
// that validates, the start that creates, and the job's status, problems
// and results.

// maxImportBody is the file plus the multipart framing.
const maxImportBody = customer.MaxImportBytes + 64<<10

// ImportView is a job as the API shows it.
type ImportView struct {
	ID           string  `json:"id"`
	Status       string  `json:"status"`
	FileName     string  `json:"fileName"`
	FileSHA256   string  `json:"fileSha256"`
	TotalRows    int     `json:"totalRows"`
	ValidRows    int     `json:"validRows"`
	InvalidRows  int     `json:"invalidRows"`
	ProblemCount int     `json:"problemCount"`
	CreatedRows  int     `json:"createdRows"`
	FailedRows   int     `json:"failedRows"`
	Progress     float64 `json:"progress"`
	CreatedAt    string  `json:"createdAt"`
	StartedAt    *string `json:"startedAt"`
	FinishedAt   *string `json:"finishedAt"`
}

func importView(im customer.Import) ImportView {
	v := ImportView{ID: im.ID, Status: im.Status, FileName: im.FileName, FileSHA256: im.FileSHA256, TotalRows: im.TotalRows,
		ValidRows: im.ValidRows, InvalidRows: im.TotalRows - im.ValidRows, ProblemCount: len(im.Problems),
		CreatedRows: im.CreatedRows, FailedRows: im.FailedRows, CreatedAt: im.CreatedAt.UTC().Format(time.RFC3339),
		StartedAt: stamp(im.StartedAt), FinishedAt: stamp(im.FinishedAt)}
	switch {
	case im.Status == customer.ImportCompleted:
		v.Progress = 1
	case im.ValidRows > 0:
		v.Progress = float64(im.CreatedRows+im.FailedRows) / float64(im.ValidRows)
	}
	return v
}

func stamp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	return envelope.Timestamp(*t)
}

// registerImports mounts the import routes.
func registerImports(handle func(string, http.Handler), svc *customer.Service, log *slog.Logger) {
	fail := func(w http.ResponseWriter, r *http.Request, err error) { envelope.Fail(r.Context(), w, log, err) }
	handle("GET /api/v1/verification/daily", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := wiretext.Query(r.URL.RawQuery); err != nil {
			fail(w, r, err)
			return
		}
		var raw *string
		if q := r.URL.Query(); q.Has("days") {
			v := q.Get("days")
			raw = &v
		}
		days, err := customer.ParseDays(raw)
		if err != nil {
			fail(w, r, err)
			return
		}
		series, err := svc.DailyResults(r.Context(), caller(r.Context()), days)
		if err != nil {
			fail(w, r, err)
			return
		}
		envelope.OK(r.Context(), w, http.StatusOK, "Daily results retrieved successfully", map[string]any{"days": series})
	}))
	handle("GET /api/v1/imports/template.csv", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeCSV(w, "customers-template.csv", customer.ImportTemplate())
	}))
	handle("POST /api/v1/imports", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, file, err := importFile(w, r)
		if err != nil {
			fail(w, r, err)
			return
		}
		defer file.Close()
		im, existing, err := svc.ValidateImport(r.Context(), caller(r.Context()), name, file)
		if err != nil {
			fail(w, r, tooLargeOr(err))
			return
		}
		status, msg := http.StatusCreated, "File checked; start the import to create its valid rows"
		if existing {
			status, msg = http.StatusOK, "This file was uploaded before; this is its import"
		}
		envelope.OK(r.Context(), w, status, msg, importView(im))
	}))
	handle("GET /api/v1/imports/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		im, err := svc.GetImport(r.Context(), caller(r.Context()), r.PathValue("id"))
		if err != nil {
			fail(w, r, err)
			return
		}
		envelope.OK(r.Context(), w, http.StatusOK, "Import retrieved successfully", importView(im))
	}))
	handle("GET /api/v1/imports/{id}/errors", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		im, err := svc.GetImport(r.Context(), caller(r.Context()), r.PathValue("id"))
		if err != nil {
			fail(w, r, err)
			return
		}
		probs := im.Problems
		if probs == nil {
			probs = []customer.Problem{}
		}
		envelope.OK(r.Context(), w, http.StatusOK, "Import problems retrieved successfully", map[string]any{"problems": probs})
	}))
	handle("POST /api/v1/imports/{id}/start", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rows, err := decodeStart(r)
		if err != nil {
			fail(w, r, err)
			return
		}
		im, started, err := svc.StartImport(r.Context(), caller(r.Context()), r.PathValue("id"), rows)
		if err != nil {
			fail(w, r, err)
			return
		}
		// 202 tells the gateway the quota it reserved is spent; 200 (a
		// started job) that it is not.
		status, msg := http.StatusAccepted, "Import started; its rows are being created"
		if !started {
			status, msg = http.StatusOK, "Import already started"
		}
		envelope.OK(r.Context(), w, status, msg, importView(im))
	}))
	handle("GET /api/v1/imports/{id}/results.csv", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := caller(r.Context())
		id := r.PathValue("id")
		im, err := svc.GetImport(r.Context(), who, id)
		if err != nil {
			fail(w, r, err)
			return
		}
		rows, err := svc.ImportRows(r.Context(), who, id)
		if err != nil {
			fail(w, r, err)
			return
		}
		writeCSV(w, "import-"+id+"-results.csv", customer.ImportResults(im, rows))
	}))
}

func writeCSV(w http.ResponseWriter, name string, b []byte) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

// importFile returns the multipart body's "file" part, streamed.
func importFile(w http.ResponseWriter, r *http.Request) (string, io.ReadCloser, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxImportBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return "", nil, apperr.New(apperr.KindUnsupported, apperr.CodeUnsupportedMedia,
			"Send the CSV file as multipart/form-data in a part named file")
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return "", nil, apperr.Validation(apperr.Detail{Field: "file", Message: "is required"})
		}
		if err != nil {
			return "", nil, tooLargeOr(apperr.New(apperr.KindInvalid, apperr.CodeValidation, "The multipart body could not be read").
				WithDetails(apperr.Detail{Field: "file", Message: "could not be read"}))
		}
		if part.FormName() == "file" {
			return part.FileName(), part, nil
		}
		_ = part.Close()
	}
}

// tooLargeOr reports a body over the limit as 413, else err.
func tooLargeOr(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return apperr.New(apperr.KindTooLarge, apperr.CodePayloadTooLarge,
			"The file is larger than "+strconv.Itoa(customer.MaxImportBytes>>20)+" MiB; split it into several files")
	}
	return err
}

// decodeStart reads {"rows": N}.
func decodeStart(r *http.Request) (int, error) {
	var in struct {
		Rows optional.Field[int] `json:"rows"`
	}
	if err := jsonbody.ReadInto(r, maxBody, &in); err != nil {
		return 0, err
	}
	if !in.Rows.Has() || in.Rows.V < 0 {
		return 0, apperr.Validation(apperr.Detail{Field: "rows", Message: "is required: the import's validRows, a number of 0 or more"})
	}
	return in.Rows.V, nil
}
