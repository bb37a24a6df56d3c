package idempotency

import (
	"bytes"
	"io"
	"mime/multipart"
	"strings"
	"testing"
)

// upload is a multipart form with a fresh random boundary.
func upload(fields ...string) (string, []byte) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for i := 0; i+2 < len(fields)+1 && i+1 < len(fields); i += 3 {
		w, _ := mw.CreateFormFile(fields[i], fields[i+1])
		_, _ = io.WriteString(w, fields[i+2])
	}
	_ = mw.Close()
	return mw.FormDataContentType(), b.Bytes()
}

// forward reads body through a StreamedBody as the transport would (in
// small reads, stopping after stop bytes) and returns what it passed on
// and the fingerprint.
func forward(t *testing.T, contentType string, body []byte, stop int) ([]byte, string) {
	t.Helper()
	b := NewStreamedBody("POST", "/docs", contentType)
	out := b.Attach(io.NopCloser(bytes.NewReader(body)))
	var got bytes.Buffer
	if out != nil {
		_, _ = io.CopyN(&got, io.LimitReader(out, int64(stop)), int64(stop))
		_ = out.Close()
	}
	fp, err := b.Drain()
	if err != nil {
		t.Fatal(err)
	}
	return got.Bytes(), fp
}

func TestStreamedBodyFingerprints(t *testing.T) {
	ct1, a1 := upload("file", "id.jpg", "JPEG bytes")
	ct2, a2 := upload("file", "id.jpg", "JPEG bytes") // another boundary
	_, renamed := upload("file", "other.jpg", "JPEG bytes")
	_, changed := upload("file", "id.jpg", "JPEG bytez")
	_, fp1 := forward(t, ct1, a1, len(a1))
	cases := []struct {
		name        string
		contentType string
		body        []byte
		stop        int
		same        bool
	}{
		{"the same form with a new boundary", ct2, a2, len(a2), true},
		{"the same form, the service reading only 10 bytes", ct1, a1, 10, true},
		{"another file name", ct1, bytes.ReplaceAll(renamed, boundaryOf(renamed), boundaryOf(a1)), 1 << 20, false},
		{"one byte of the file changed", ct1, bytes.ReplaceAll(changed, boundaryOf(changed), boundaryOf(a1)), 1 << 20, false},
		{"the raw bytes under another content type", "application/octet-stream", a1, 1 << 20, false},
	}
	for _, c := range cases {
		passed, fp := forward(t, c.contentType, c.body, c.stop)
		if want := c.body[:min(c.stop, len(c.body))]; !bytes.Equal(passed, want) {
			t.Errorf("%s: the transport got %d bytes that differ from the body's first %d", c.name, len(passed), len(want))
		}
		if (fp == fp1) != c.same {
			t.Errorf("%s: same fingerprint %v, want %v", c.name, fp == fp1, c.same)
		}
	}
}

// boundaryOf returns the boundary line a form starts with.
func boundaryOf(form []byte) []byte {
	line, _, _ := bytes.Cut(form, []byte("\r\n"))
	return line
}

func TestJudge(t *testing.T) {
	cases := []struct {
		name   string
		stored Stored
		fp     string
		want   Outcome
	}{
		{"finished, same request", Stored{Fingerprint: "a", Status: 201}, "a", Replay},
		{"finished, other request", Stored{Fingerprint: "a", Status: 201}, "b", Reused},
		{"running, same request", Stored{Fingerprint: "a", Running: true}, "a", InProgress},
		{"running, other request", Stored{Fingerprint: "a", Running: true}, "b", Reused},
		{"running upload, fingerprint not known yet", Stored{Running: true}, "b", InProgress},
		{"running, retry not hashed yet", Stored{Fingerprint: "a", Running: true}, "", InProgress},
	}
	for _, c := range cases {
		if got := Judge(&c.stored, c.fp); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// Whatever the body, the transport gets exactly its bytes, and the
// fingerprint does not depend on how much of it the transport read.
func FuzzStreamedBody(f *testing.F) {
	ct, form := upload("file", "a.png", strings.Repeat("x", 5000))
	f.Add(form, 7, strings.TrimPrefix(ct, "multipart/form-data; boundary="))
	f.Add([]byte("--b\r\n\r\n"), 1, "b")
	f.Fuzz(func(t *testing.T, body []byte, stop int, boundary string) {
		stop = max(stop, 0) % (len(body) + 1)
		contentType := "multipart/form-data; boundary=" + boundary
		all, fpAll := forward(t, contentType, body, len(body))
		if !bytes.Equal(all, body) {
			t.Fatalf("the transport got %q, want %q", all, body)
		}
		if _, fp := forward(t, contentType, body, stop); fp != fpAll {
			t.Fatalf("reading %d bytes changed the fingerprint", stop)
		}
	})
}
