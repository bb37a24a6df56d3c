package evidence_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/reporting/internal/evidence"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// photo is a w x h JPEG, red in its top-left quarter and white elsewhere,
// with an EXIF orientation when orientation > 0.
func photo(t testing.TB, w, h int, orientation uint16) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 255, 255, 255}
			if x < w/2 && y < h/2 {
				c = color.RGBA{220, 20, 20, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	if orientation == 0 {
		return b.Bytes()
	}
	return withOrientation(b.Bytes(), orientation)
}

// withOrientation inserts an APP1 EXIF segment holding only the
// Orientation tag right after the JPEG's SOI marker.
func withOrientation(j []byte, o uint16) []byte {
	var tiff bytes.Buffer
	tiff.WriteString("II*\x00")
	_ = binary.Write(&tiff, binary.LittleEndian, uint32(8)) // IFD0 offset
	_ = binary.Write(&tiff, binary.LittleEndian, uint16(1)) // one entry
	_ = binary.Write(&tiff, binary.LittleEndian, []uint16{0x0112, 3})
	_ = binary.Write(&tiff, binary.LittleEndian, uint32(1))
	_ = binary.Write(&tiff, binary.LittleEndian, []uint16{o, 0})
	_ = binary.Write(&tiff, binary.LittleEndian, uint32(0)) // no next IFD
	payload := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	seg := []byte{0xFF, 0xE1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}
	out := append([]byte{}, j[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, j[2:]...)
}

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("thumbnail is not a JPEG: %v", err)
	}
	return img
}

func red(img image.Image, x, y int) bool {
	r, g, _, _ := img.At(x, y).RGBA()
	return r>>8 > 180 && g>>8 < 80
}

func TestThumbnailIsSmallAndUpright(t *testing.T) {
	cases := []struct {
		name        string
		orientation uint16
		w, h        int
		// where the red quarter ends up, as fractions of the thumbnail
		redX, redY float64
	}{
		{"no EXIF", 0, 480, 360, 0.25, 0.25},
		{"upright", 1, 480, 360, 0.25, 0.25},
		{"turned 90° clockwise (6)", 6, 360, 480, 0.75, 0.25},
		{"upside down (3)", 3, 480, 360, 0.75, 0.75},
		{"turned 90° anticlockwise (8)", 8, 360, 480, 0.25, 0.75},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := evidence.Thumbnail(photo(t, 1600, 1200, tc.orientation))
			if err != nil {
				t.Fatal(err)
			}
			img := decode(t, b)
			if got := img.Bounds(); got.Dx() != tc.w || got.Dy() != tc.h {
				t.Fatalf("thumbnail %dx%d, want %dx%d", got.Dx(), got.Dy(), tc.w, tc.h)
			}
			if !red(img, int(tc.redX*float64(tc.w)), int(tc.redY*float64(tc.h))) {
				t.Fatalf("the red corner is not where an upright photo has it")
			}
		})
	}
	small := photo(t, 300, 200, 0)
	if b, err := evidence.Thumbnail(small); err != nil || !bytes.Equal(b, small) {
		t.Fatalf("a small upright JPEG is not kept as it is: %v", err)
	}
	if b, err := evidence.Thumbnail(photo(t, 300, 200, 6)); err != nil || decode(t, b).Bounds().Dx() != 200 {
		t.Fatalf("a small JPEG on its side is not turned upright: %v", err)
	}
}

// hugePNG is a valid PNG header declaring w x h pixels.
func hugePNG(t *testing.T, w, h uint32) []byte {
	var b bytes.Buffer
	_ = png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)))
	p := b.Bytes()
	binary.BigEndian.PutUint32(p[16:], w)
	binary.BigEndian.PutUint32(p[20:], h)
	binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
	return p
}

func TestThumbnailRefusesWhatIsNotAPhoto(t *testing.T) {
	for name, b := range map[string][]byte{
		"text":             []byte("not an image"),
		"a pixel bomb":     hugePNG(t, 100_000, 100_000),
		"a truncated JPEG": photo(t, 640, 480, 0)[:400],
	} {
		if _, err := evidence.Thumbnail(b); !errors.Is(err, report.ErrPhotoUnavailable) {
			t.Errorf("%s: %v, want ErrPhotoUnavailable", name, err)
		}
	}
}

const (
	customer = "cus_019a2b3c4d5e6f708192a3b4c5d6e7f8"
	photoID  = "pho_019a2b3c4d5e6f708192a3b4c5d6e7f8"
	gone     = "pho_00000000000000000000000000000000"
	fresh    = "pho_00000000000000000000000000000001"
	failing  = "pho_ffffffffffffffffffffffffffffffff"
)

// TestClientReadsPhotosAsAServiceOfTheTenant: the client calls the
// verification service's photo path with a service principal for the
// report's organization and environment; a photo that is gone is
// unavailable, a failing service is an error to retry.
func TestClientReadsPhotosAsAServiceOfTheTenant(t *testing.T) {
	signer, err := principal.NewSigner([]string{"a-test-secret-of-enough-length"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	jpg := photo(t, 640, 480, 0)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := signer.Verify(r.Header.Get(principal.Header), r.Method, r.URL.EscapedPath())
		if err != nil || p.Kind != principal.KindService || p.OrgID != "org_a" || p.Env != "live" {
			http.Error(w, "bad principal", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/api/v1/verification/" + customer + "/photos/" + photoID:
			_, _ = w.Write(jpg)
		case "/api/v1/verification/" + customer + "/photos/" + failing:
			http.Error(w, "down", http.StatusServiceUnavailable)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := evidence.New(srv.URL, signer, 5*time.Second)
	ctx := context.Background()
	b, err := c.Thumbnail(ctx, "org_a", "live", customer, photoID)
	if err != nil || decode(t, b).Bounds().Dx() != 480 {
		t.Fatalf("photo: %v", err)
	}
	for _, id := range []string{gone, "../../../admin", "pho_x"} {
		if _, err := c.Thumbnail(ctx, "org_a", "live", customer, id); !errors.Is(err, report.ErrPhotoUnavailable) {
			t.Errorf("%s: %v, want unavailable", id, err)
		}
	}
	if _, err := c.Thumbnail(ctx, "org_a", "live", customer, failing); err == nil || errors.Is(err, report.ErrPhotoUnavailable) {
		t.Errorf("a failing service: %v, want an error to retry", err)
	}
	if _, err := c.Thumbnail(ctx, "org_b", "live", customer, photoID); err == nil || errors.Is(err, report.ErrPhotoUnavailable) {
		t.Errorf("refused principal: %v, want an error to retry", err)
	}
}

// TestThumbnailKeepsColoursToTheEdges: the block averaging of a JPEG's
// planes leaves no uncoloured column or row at the right or bottom edge
// (odd sizes round the chroma planes up).
func TestThumbnailKeepsColoursToTheEdges(t *testing.T) {
	for _, size := range [][2]int{{1600, 1200}, {1601, 1201}, {1999, 1333}} {
		b, err := evidence.Thumbnail(photo(t, size[0], size[1], 0))
		if err != nil {
			t.Fatal(err)
		}
		img := decode(t, b)
		bd := img.Bounds()
		for _, pt := range [][2]int{{bd.Max.X - 1, bd.Max.Y - 1}, {bd.Max.X - 1, 0}, {0, bd.Max.Y - 1}} {
			r, g, bl, _ := img.At(pt[0], pt[1]).RGBA()
			if r>>8 < 200 || g>>8 < 200 || bl>>8 < 200 {
				t.Errorf("%dx%d: pixel %v is %d,%d,%d, want white", size[0], size[1], pt, r>>8, g>>8, bl>>8)
			}
		}
	}
}

func BenchmarkThumbnail(b *testing.B) {
	o := photo(b, 1600, 1200, 6)
	for b.Loop() {
		if _, err := evidence.Thumbnail(o); err != nil {
			b.Fatal(err)
		}
	}
}
