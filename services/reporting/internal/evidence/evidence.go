// Package evidence fetches the field agents' photos from the verification
// service, the context that owns them, and turns each into a small,
// upright JPEG for the report. It calls the verification service's own
// photo endpoint directly (not through the gateway) with a service
// principal for the report's organization and environment: no other
// context's database or bucket is read.
package evidence

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	_ "image/png" // photos may be PNGs
	"io"
	"net/http"
	"net/url"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/image/draw"

	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/orient"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// Limits: a photo is at most 10 MiB (the verification service's own
// cap) and 50 megapixels (checked from the header, before decoding).
const (
	maxBytes  = 10 << 20
	maxPixels = 50_000_000
	// LongSide is the thumbnails' longer side in pixels: about 220 dpi at
	// the 56 mm a photo takes on the page.
	LongSide = 480
	quality  = 78
	// maxThumbBytes is the most a photo kept as it is may weigh.
	maxThumbBytes = 160 << 10
)

// Client implements report.Evidence.
type Client struct {
	// BaseURL is the verification service's own address (VERIFICATION_URL).
	BaseURL string
	Signer  *principal.Signer
	HTTP    *http.Client
	// byContent keeps recent thumbnails by the SHA-256 of the photo they
	// came from: the sandbox stores its few mock photos once and every
	// sandbox customer's report shows them, so without it most of the
	// service's CPU went to shrinking the same pictures again (BENCHMARKS
	// section 12). Only the same bytes hit, so it shows nobody a photo
	// they could not fetch themselves.
	byContent *lru.Cache[[sha256.Size]byte, []byte]
}

// recentThumbnails bounds byContent: at most 160 KiB each, 20 MiB in all.
const recentThumbnails = 128

// New returns a client whose calls each take at most timeout.
func New(baseURL string, signer *principal.Signer, timeout time.Duration) *Client {
	byContent, _ := lru.New[[sha256.Size]byte, []byte](recentThumbnails) // errs only on a size below 1
	return &Client{BaseURL: baseURL, Signer: signer, HTTP: &http.Client{Timeout: timeout}, byContent: byContent}
}

// Thumbnail implements report.Evidence: report.ErrPhotoUnavailable when
// the photo is gone or unreadable (printed as such), any other error when
// the verification service could not be asked (retried).
func (c *Client) Thumbnail(ctx context.Context, orgID, env, customerID, photoID string) ([]byte, error) {
	b, _, err := c.ThumbnailShrunk(ctx, orgID, env, customerID, photoID)
	return b, err
}

// ThumbnailShrunk is Thumbnail, and whether the photo had to be shrunk
// (false when the same bytes were shrunk recently): Cached keeps only the
// thumbnails that cost something to make.
func (c *Client) ThumbnailShrunk(ctx context.Context, orgID, env, customerID, photoID string) ([]byte, bool, error) {
	if !ids.Valid("cus", customerID) || !ids.Valid("pho", photoID) {
		return nil, false, fmt.Errorf("%w: not a photo id", report.ErrPhotoUnavailable)
	}
	path := "/api/v1/verification/" + url.PathEscape(customerID) + "/photos/" + url.PathEscape(photoID)
	resp, err := principal.Client{BaseURL: c.BaseURL, Signer: c.Signer, HTTP: c.HTTP}.Do(ctx, http.MethodGet, path, orgID, env)
	if err != nil {
		return nil, false, fmt.Errorf("evidence: verification service: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, false, fmt.Errorf("%w: 404", report.ErrPhotoUnavailable)
	case resp.StatusCode != http.StatusOK:
		return nil, false, fmt.Errorf("evidence: verification service answered %d", resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("evidence: read photo: %w", err)
	}
	if len(b) > maxBytes {
		return nil, false, fmt.Errorf("%w: over %d bytes", report.ErrPhotoUnavailable, maxBytes)
	}
	return c.thumbnail(b)
}

// thumbnail is Thumbnail(b), from byContent when the same bytes were
// shrunk recently (shrunk is then false).
func (c *Client) thumbnail(b []byte) (t []byte, shrunk bool, err error) {
	if c.byContent == nil {
		t, err = Thumbnail(b)
		return t, true, err
	}
	sum := sha256.Sum256(b)
	if t, ok := c.byContent.Get(sum); ok {
		return t, false, nil
	}
	t, err = Thumbnail(b)
	if err == nil {
		c.byContent.Add(sum, t)
	}
	return t, true, err
}

// ErrTooManyPixels refuses an image whose header declares more pixels
// than a phone photo has (a decompression bomb).
var ErrTooManyPixels = errors.New("evidence: image over 50 megapixels")

// Thumbnail turns a JPEG or PNG into an upright JPEG whose longer side is
// at most LongSide: fpdf ignores EXIF orientation, and full-size photos
// would make the report as large as the photos.
func Thumbnail(b []byte) ([]byte, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", report.ErrPhotoUnavailable, err)
	}
	if cfg.Width*cfg.Height > maxPixels {
		return nil, fmt.Errorf("%w: %w", report.ErrPhotoUnavailable, ErrTooManyPixels)
	}
	if small(cfg, format, len(b)) && orient.Of(bytes.NewReader(b)) <= 1 {
		// Already thumbnail-sized and upright: fpdf embeds a JPEG's bytes
		// as they are, so decoding it would only cost time.
		return b, nil
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", report.ErrPhotoUnavailable, err)
	}
	// Shrink first, turn upright after: rotating the small image is cheap.
	img = orient.Upright(shrink(img, LongSide), orient.Of(bytes.NewReader(b)))
	var out bytes.Buffer
	if err := jpeg.Encode(&out, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// small reports whether a photo can go into the report as it is: an RGB
// or grey JPEG no larger than a thumbnail.
func small(cfg image.Config, format string, size int) bool {
	return format == "jpeg" && cfg.Width <= LongSide && cfg.Height <= LongSide && size <= maxThumbBytes &&
		(cfg.ColorModel == color.YCbCrModel || cfg.ColorModel == color.GrayModel)
}

// shrink fits img within side x side. A decoded JPEG is first reduced by
// the largest whole factor that keeps it above the target, averaging
// blocks of its planes (a box filter, no aliasing); approximate bilinear
// scaling then does the small rest. Approximate bilinear alone aliases a
// 3x reduction, and a true kernel costs 75-90 ms for a 1600x1200 photo
// here (measured), against about 20 ms for decoding it.
func shrink(img image.Image, side int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= side && h <= side {
		return img
	}
	if w >= h {
		w, h = side, max(1, h*side/w)
	} else {
		w, h = max(1, w*side/h), side
	}
	if y, ok := img.(*image.YCbCr); ok {
		if k := b.Dx() / w; k >= 2 {
			img = boxYCbCr(y, k)
			b = img.Bounds()
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}
