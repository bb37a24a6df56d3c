package evidence

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/principal"
)

// TestSameBytesAreShrunkOnce: the sandbox's mock photos are the same bytes
// under every customer's photo ids; the client shrinks them once, while a
// different photo is shrunk on its own, and each call still fetches the
// photo with the caller's principal (the verification service decides who
// may read it, never the cache).
func TestSameBytesAreShrunkOnce(t *testing.T) {
	signer, err := principal.NewSigner([]string{"a-test-secret-of-enough-length"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	mock, other := jpegOf(t, 900, 600, 40), jpegOf(t, 900, 600, 200)
	fetched := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := signer.Verify(r.Header.Get(principal.Header), r.Method, r.URL.EscapedPath()); err != nil {
			http.Error(w, "bad principal", http.StatusUnauthorized)
			return
		}
		fetched++
		if r.URL.Path == "/api/v1/verification/cus_00000000000000000000000000000003/photos/pho_00000000000000000000000000000003" {
			_, _ = w.Write(other)
			return
		}
		_, _ = w.Write(mock)
	}))
	defer srv.Close()
	c := New(srv.URL, signer, 5*time.Second)
	first, err := c.Thumbnail(context.Background(), "org_a", "test", "cus_00000000000000000000000000000001", "pho_00000000000000000000000000000001")
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Thumbnail(context.Background(), "org_b", "test", "cus_00000000000000000000000000000002", "pho_00000000000000000000000000000002")
	if err != nil || !bytes.Equal(first, second) || c.byContent.Len() != 1 {
		t.Fatalf("the same photo under another customer: err %v, same thumbnail %v, %d shrunk", err, bytes.Equal(first, second), c.byContent.Len())
	}
	third, err := c.Thumbnail(context.Background(), "org_a", "test", "cus_00000000000000000000000000000003", "pho_00000000000000000000000000000003")
	if err != nil || bytes.Equal(first, third) || c.byContent.Len() != 2 {
		t.Fatalf("another photo: err %v, %d shrunk", err, c.byContent.Len())
	}
	if fetched != 3 {
		t.Fatalf("fetched %d photos for 3 calls: a cached thumbnail must not skip the fetch and its check", fetched)
	}
}

func jpegOf(t *testing.T, w, h int, shade uint8) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.RGBA{R: shade, G: uint8(x), B: uint8(y), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
