// Package files turns an uploaded file into the file the platform stores:
// its real type read from its bytes, images checked by their header
// before decoding (image bombs), turned upright from their EXIF, fitted to
// 2000 px, re-encoded (which drops every metadata block), PDFs checked
// for their header and trailer and kept as they are.
//
// The upload itself is spooled to a temporary file as it arrives (Spool),
// so a request never holds more than a copy buffer of it in memory;
// decoding an image needs the whole image in memory, which the pixel cap
// bounds (50 megapixels).
package files

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"runtime"

	"github.com/disintegration/imaging"
	"github.com/gabriel-vasile/mimetype"
	_ "golang.org/x/image/webp" // registers webp with image.Decode

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/orient"
	"github.com/kycfield/kyc/services/document/internal/document"
)

// JPEGQuality is the quality stored photos are encoded with.
const JPEGQuality = 80

// pdfTrailerWindow is how far from the end a PDF's %%EOF may sit
// (writers append a newline or a few bytes of padding).
const pdfTrailerWindow = 1024

// ErrTooLarge is an upload over document.MaxFileSize.
var ErrTooLarge = errors.New("files: upload over the size limit")

// TooLarge is the error answered for an oversized file.
func TooLarge() error {
	return apperr.New(apperr.KindTooLarge, document.CodeFileTooLarge,
		fmt.Sprintf("A document may be at most %d MiB (%d bytes)", document.MaxFileSize>>20, document.MaxFileSize))
}

// Spool copies r into a new temporary file in dir ("" for the system's),
// refusing more than document.MaxFileSize bytes with ErrTooLarge (the
// file is then removed). The caller removes the file it gets.
func Spool(dir string, r io.Reader) (*os.File, int64, error) {
	f, err := os.CreateTemp(dir, "upload-*")
	if err != nil {
		return nil, 0, err
	}
	n, err := io.Copy(f, io.LimitReader(r, document.MaxFileSize+1))
	if err == nil && n > document.MaxFileSize {
		err = ErrTooLarge
	}
	if err != nil {
		Discard(f)
		return nil, 0, err
	}
	return f, n, nil
}

// Discard closes and removes a spooled file.
func Discard(f *os.File) {
	if f != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}
}

func invalid(msg string) error {
	return apperr.New(apperr.KindUnprocessable, document.CodeInvalidFile, msg)
}

// Prepare reads the spooled upload f (size bytes) and returns what to
// store: images optimised into memory, PDFs streamed from f. name is the
// client's file name.
func Prepare(ctx context.Context, f *os.File, size int64, name string) (document.File, error) {
	if size == 0 {
		return document.File{}, apperr.Validation(apperr.Detail{Field: "file", Message: "must not be empty"})
	}
	head := make([]byte, 3072)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return document.File{}, apperr.Internal(err)
	}
	mt := mimetype.Detect(head[:n]).String()
	switch mt {
	case "image/jpeg", "image/png", "image/webp":
		return optimise(ctx, f, mt, size, name)
	case "application/pdf":
		return checkPDF(f, size, name)
	}
	return document.File{}, apperr.New(apperr.KindUnsupported, document.CodeUnsupportedFile,
		"A document must be a JPEG, PNG or WebP image or a PDF (judged by its content, not its name)")
}

// optimise decodes the image (once its header shows it is within the
// pixel cap), fits it and re-encodes it: JPEG stays JPEG; PNG stays PNG
// unless it is opaque and JPEG is smaller; WebP becomes JPEG when opaque
// and PNG otherwise.
func optimise(ctx context.Context, f *os.File, mt string, size int64, name string) (document.File, error) {
	cfg, _, err := image.DecodeConfig(io.NewSectionReader(f, 0, size))
	if err != nil {
		return document.File{}, invalid("The image could not be read: it is damaged or incomplete")
	}
	if int64(cfg.Width)*int64(cfg.Height) > document.MaxPixels || cfg.Width <= 0 || cfg.Height <= 0 {
		return document.File{}, apperr.New(apperr.KindUnprocessable, document.CodeImageTooLarge,
			fmt.Sprintf("The image declares %d x %d pixels; at most %d megapixels are accepted", cfg.Width, cfg.Height, document.MaxPixels/1_000_000))
	}
	select {
	case optimising <- struct{}{}:
		defer func() {
			<-optimising
			// An optimisation leaves about 60 MB of garbage at once; left
			// to the pacer, the heap would grow to twice what is live
			// before collecting it. Collecting now (a few ms against the
			// ~1 s the optimisation took) keeps the peak near what is live.
			runtime.GC()
		}()
	case <-ctx.Done(): // the client gave up while waiting its turn
		return document.File{}, ctx.Err()
	}
	// Fitted first, turned upright after: turning a 12-megapixel photo
	// copies it at 4 bytes a pixel (48 MB), turning the fitted one costs a
	// quarter of that. The fit box is square, so the order does not change
	// the result.
	img, err := imaging.Decode(io.NewSectionReader(f, 0, size))
	if err != nil {
		return document.File{}, invalid("The image could not be read: it is damaged or incomplete")
	}
	b := img.Bounds()
	if b.Dx() > document.MaxLongSide || b.Dy() > document.MaxLongSide {
		img = imaging.Fit(img, document.MaxLongSide, document.MaxLongSide, imaging.Lanczos)
	}
	if mt == "image/jpeg" {
		img = orient.Upright(img, orient.Of(io.NewSectionReader(f, 0, size)))
	}
	opaque := isOpaque(img)
	var out bytes.Buffer
	outType := "image/jpeg"
	switch {
	case mt == "image/jpeg" || (mt == "image/webp" && opaque):
		err = jpeg.Encode(&out, img, &jpeg.Options{Quality: JPEGQuality})
	default: // PNG, or a WebP with transparency
		outType = "image/png"
		enc := png.Encoder{CompressionLevel: png.BestCompression}
		if err = enc.Encode(&out, img); err == nil && opaque {
			var j bytes.Buffer
			if jpeg.Encode(&j, img, &jpeg.Options{Quality: JPEGQuality}) == nil && j.Len() < out.Len() {
				out, outType = j, "image/jpeg"
			}
		}
	}
	if err != nil {
		return document.File{}, apperr.Internal(err)
	}
	sum := sha256.Sum256(out.Bytes())
	ext := map[string]string{"image/jpeg": ".jpg", "image/png": ".png"}[outType]
	return document.File{Body: bytes.NewReader(out.Bytes()), Size: int64(out.Len()), OriginalSize: size,
		SHA256: hex.EncodeToString(sum[:]), ContentType: outType, Ext: ext, Name: name}, nil
}

// optimising bounds the optimisations running at once: each holds a
// decoded photo (about 60 MB for 12 megapixels) and keeps a core busy, so
// more at once than there are cores costs memory and gains nothing;
// uploads beyond it wait, spooled on disk. SetConcurrency sizes it.
var optimising = make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))

// SetConcurrency sets how many optimisations may run at once (at least
// one); call it before serving.
func SetConcurrency(n int) { optimising = make(chan struct{}, max(n, 1)) }

func isOpaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}

// checkPDF accepts a file that starts with %PDF- and has a %%EOF trailer
// near its end; it is stored as it is.
func checkPDF(f *os.File, size int64, name string) (document.File, error) {
	head := make([]byte, 5)
	if _, err := f.ReadAt(head, 0); err != nil || string(head) != "%PDF-" {
		return document.File{}, invalid("The PDF could not be read: it does not start with %PDF-")
	}
	w := min(size, pdfTrailerWindow)
	tail := make([]byte, w)
	if _, err := f.ReadAt(tail, size-w); err != nil && !errors.Is(err, io.EOF) {
		return document.File{}, apperr.Internal(err)
	}
	if !bytes.Contains(tail, []byte("%%EOF")) {
		return document.File{}, invalid("The PDF is incomplete: it has no %%EOF trailer")
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, size)); err != nil {
		return document.File{}, apperr.Internal(err)
	}
	return document.File{Body: io.NewSectionReader(f, 0, size), Size: size, OriginalSize: size,
		SHA256: hex.EncodeToString(h.Sum(nil)), ContentType: "application/pdf", Ext: ".pdf", Name: name}, nil
}
