package httpapi_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/rwcarlsen/goexif/exif"

	"github.com/kycfield/kyc/pkg/exiftest"
)

// A 12-megapixel phone photo with the customer's home in its EXIF GPS is
// stored fitted to 2000 px, smaller, and with no EXIF left: read back
// from MinIO, an EXIF reader finds nothing where it found the position in
// the upload.
func TestTwelveMegapixelPhotoIsStoredShrunkWithoutItsGPS(t *testing.T) {
	f := setup(t, nil)
	who := newTenant("live")
	cus := f.customer(t, who)
	img := image.NewNRGBA(image.Rect(0, 0, 4000, 3000))
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < len(img.Pix); i += 4 {
		x, y, g := i/4%4000, i/4/4000, uint8(r.IntN(40))
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x/16)+g, uint8(y/12)+g, uint8((x+y)/28)+g, 255
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	raw := exiftest.JPEG(b.Bytes(), exiftest.TIFF(6.4281, 3.4219, time.Now()))
	if x, err := exif.Decode(bytes.NewReader(raw)); err != nil {
		t.Fatalf("the upload's EXIF does not read: %v", err)
	} else if lat, _, err := x.LatLong(); err != nil || math.Abs(lat-6.4281) > 1e-3 {
		t.Fatalf("the upload carries no position (%v %v): the test proves nothing", lat, err)
	}

	up := f.upload(t, who, cus, part{name: "documentType", value: "PASSPORT_PHOTO"}, part{name: "file", file: "IMG_0001.jpg", value: string(raw)})
	if up.status != http.StatusCreated {
		t.Fatalf("upload: %d %s", up.status, up.body)
	}
	d := up.doc(t)
	g := f.do(t, who, "GET", "/api/v1/customers/"+cus+"/documents/"+d.ID+"/file", "", nil)
	cfg, format, err := image.DecodeConfig(bytes.NewReader(g.body))
	if g.status != http.StatusOK || err != nil || format != "jpeg" || cfg.Width != 2000 || cfg.Height != 1500 {
		t.Fatalf("stored %s %dx%d (%v, %d)", format, cfg.Width, cfg.Height, err, g.status)
	}
	if len(g.body) >= len(raw) {
		t.Fatalf("stored %d bytes, uploaded %d: not smaller", len(g.body), len(raw))
	}
	if _, err := exif.Decode(bytes.NewReader(g.body)); err == nil {
		t.Fatal("the stored photo still carries EXIF")
	}
	t.Logf("4000x3000 %d bytes -> %dx%d %d bytes", len(raw), cfg.Width, cfg.Height, len(g.body))
}
