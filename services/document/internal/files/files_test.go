package files

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/services/document/internal/document"
)

// noisy is a w x h photo-like image (noise compresses badly, as photos do).
func noisy(w, h int, alpha uint8) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(r.IntN(256)), uint8(i/4%w), uint8(i/4/w), alpha
	}
	return img
}

// withExif puts an APP1 Exif segment (Orientation 6: rotate 90 degrees
// clockwise to show upright; a description standing for GPS and device
// data) right after a JPEG's SOI.
func withExif(j []byte) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.BigEndian, v) }
	b.WriteString("MM\x00\x2A")
	w(uint32(8))
	w(uint16(2))
	w(uint16(0x010E)) // ImageDescription
	w(uint16(2))
	w(uint32(16))
	w(uint32(38))
	w(uint16(0x0112)) // Orientation
	w(uint16(3))
	w(uint32(1))
	w(uint32(6) << 16)
	w(uint32(0))
	b.WriteString("GPS 6.4281N 3.4219E\x00") // at 38, 16+ bytes
	app1 := append([]byte{0xFF, 0xE1, 0, 0}, append([]byte("Exif\x00\x00"), b.Bytes()...)...)
	binary.BigEndian.PutUint16(app1[2:], uint16(len(app1)-2))
	return append(append([]byte{0xFF, 0xD8}, app1...), j[2:]...)
}

func encJPEG(t testing.TB, img image.Image, q int) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encPNG(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngBomb is a PNG header declaring w x h pixels, with a valid IHDR CRC
// and no pixel data.
func pngBomb(w, h uint32) []byte {
	ihdr := make([]byte, 17)
	copy(ihdr, "IHDR")
	binary.BigEndian.PutUint32(ihdr[4:], w)
	binary.BigEndian.PutUint32(ihdr[8:], h)
	ihdr[12], ihdr[13] = 8, 6 // 8-bit RGBA
	out := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0d")
	out = append(out, ihdr...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(ihdr))
}

func prepare(t *testing.T, b []byte, name string) (document.File, []byte, error) {
	t.Helper()
	f, n, err := Spool(t.TempDir(), bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Discard(f) })
	out, err := Prepare(context.Background(), f, n, name)
	if err != nil {
		return out, nil, err
	}
	stored, err := io.ReadAll(out.Body)
	if err != nil || int64(len(stored)) != out.Size {
		t.Fatalf("stored %d bytes, File says %d (%v)", len(stored), out.Size, err)
	}
	return out, stored, nil
}

// A 3000 x 2000 photo taken sideways with EXIF is stored upright, fitted
// to 2000 px, smaller, and without its metadata.
func TestPhotoIsTurnedFittedShrunkAndStripped(t *testing.T) {
	raw := withExif(encJPEG(t, noisy(3000, 2000, 255), 95))
	f, stored, err := prepare(t, raw, "IMG_0001.jpg")
	if err != nil {
		t.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(stored))
	if err != nil || format != "jpeg" || f.ContentType != "image/jpeg" || f.Ext != ".jpg" {
		t.Fatalf("stored %s %s (%v)", format, f.ContentType, err)
	}
	if cfg.Width != 1333 || cfg.Height != 2000 {
		t.Fatalf("stored %dx%d, want 1333x2000 (upright, fitted)", cfg.Width, cfg.Height)
	}
	if f.OriginalSize != int64(len(raw)) || f.Size >= f.OriginalSize {
		t.Fatalf("sizes %d -> %d: not smaller", f.OriginalSize, f.Size)
	}
	if bytes.Contains(stored, []byte("Exif")) || bytes.Contains(stored, []byte("GPS 6.4281N")) {
		t.Fatal("metadata kept")
	}
	t.Logf("%d x %d JPEG q95 %d bytes -> %d x %d q%d %d bytes", 3000, 2000, len(raw), cfg.Width, cfg.Height, JPEGQuality, len(stored))
}

func TestPNGStaysPNGWithTransparencyAndBecomesJPEGWhenSmaller(t *testing.T) {
	f, stored, err := prepare(t, encPNG(t, noisy(300, 200, 128)), "logo.png")
	if err != nil || f.ContentType != "image/png" || !bytes.HasPrefix(stored, []byte("\x89PNG")) {
		t.Fatalf("transparent PNG stored as %s (%v)", f.ContentType, err)
	}
	f, stored, err = prepare(t, encPNG(t, noisy(300, 200, 255)), "photo.png")
	if err != nil || f.ContentType != "image/jpeg" || !bytes.HasPrefix(stored, []byte{0xFF, 0xD8}) {
		t.Fatalf("opaque noisy PNG stored as %s (%v), want JPEG (smaller)", f.ContentType, err)
	}
	flat := image.NewNRGBA(image.Rect(0, 0, 300, 200))
	for i := range flat.Pix {
		flat.Pix[i] = 255
	}
	flat.Set(10, 10, color.Black)
	if f, _, err = prepare(t, encPNG(t, flat), "scan.png"); err != nil || f.ContentType != "image/png" {
		t.Fatalf("flat opaque PNG stored as %s (%v), want PNG (smaller)", f.ContentType, err)
	}
}

func TestWebPIsStoredAsJPEGOrPNG(t *testing.T) {
	// A 1x1 lossless WebP with an alpha channel: stored as PNG.
	raw, _ := base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	f, stored, err := prepare(t, raw, "selfie.webp")
	if err != nil {
		t.Fatal(err)
	}
	if f.ContentType != "image/png" && f.ContentType != "image/jpeg" {
		t.Fatalf("webp stored as %s", f.ContentType)
	}
	if _, _, err := image.Decode(bytes.NewReader(stored)); err != nil {
		t.Fatal(err)
	}
}

func TestTypeComesFromTheBytes(t *testing.T) {
	f, _, err := prepare(t, encPNG(t, noisy(20, 20, 100)), "contract.pdf")
	if err != nil || f.ContentType != "image/png" || f.Name != "contract.pdf" {
		t.Fatalf("PNG named .pdf stored as %s (%v)", f.ContentType, err)
	}
	pdf := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	f, stored, err := prepare(t, pdf, "statement.pdf")
	if err != nil || f.ContentType != "application/pdf" || !bytes.Equal(stored, pdf) || f.Size != int64(len(pdf)) {
		t.Fatalf("PDF stored as %s (%v), changed: %v", f.ContentType, err, !bytes.Equal(stored, pdf))
	}
}

func TestRefused(t *testing.T) {
	photo := encJPEG(t, noisy(400, 300, 255), 90)
	cases := []struct {
		name string
		body []byte
		code string
	}{
		{"empty", nil, apperr.CodeValidation},
		{"shell script named .pdf", []byte("#!/bin/sh\nrm -rf /\n"), document.CodeUnsupportedFile},
		{"html", []byte("<html><script>alert(1)</script></html>"), document.CodeUnsupportedFile},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), document.CodeUnsupportedFile},
		{"truncated JPEG", photo[:len(photo)/2], document.CodeInvalidFile},
		{"image bomb 50000 x 50000", pngBomb(50000, 50000), document.CodeImageTooLarge},
		{"PDF without trailer", []byte("%PDF-1.7\n" + strings.Repeat("x", 5000)), document.CodeInvalidFile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := prepare(t, c.body, "x.pdf")
			if !apperr.IsCode(err, c.code) {
				t.Fatalf("err %v, want %s", err, c.code)
			}
		})
	}
}

func TestSpoolRefusesMoreThan10MiB(t *testing.T) {
	dir := t.TempDir()
	f, n, err := Spool(dir, io.LimitReader(zeros{}, document.MaxFileSize))
	if err != nil || n != document.MaxFileSize {
		t.Fatalf("10 MiB: %d %v", n, err)
	}
	Discard(f)
	if _, _, err := Spool(dir, io.LimitReader(zeros{}, document.MaxFileSize+1)); err != ErrTooLarge {
		t.Fatalf("10 MiB + 1: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
