package files

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/disintegration/imaging"

	"github.com/kycfield/kyc/services/document/internal/document"
)

// photo12MP is a 4000 x 3000 photo-like JPEG (gradients with grain, about
// 4 MB at quality 90) carrying EXIF orientation 6, as a phone would send.
func photo12MP(b *testing.B) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 4000, 3000))
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < len(img.Pix); i += 4 {
		x, y := i/4%4000, i/4/4000
		g := uint8(r.IntN(24))
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x/16)+g, uint8(y/12)+g, uint8((x+y)/28)+g, 255
	}
	var out bytes.Buffer
	if err := jpeg.Encode(&out, img, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	return withExif(out.Bytes())
}

// BenchmarkOptimiseAgainstImaging12MP times, in pairs and in alternating
// order (so a noisy neighbour slows both alike), the service's whole
// optimisation of a spooled 12-megapixel JPEG (sniff, header check,
// decode with EXIF orientation, fit to 2000 px, re-encode at quality 80,
// hash) against the imaging library called directly with the same steps
// on the same bytes. It reports the median of each and their ratio.
func BenchmarkOptimiseAgainstImaging12MP(b *testing.B) {
	raw := photo12MP(b)
	path := filepath.Join(b.TempDir(), "photo.jpg")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	service := func() {
		if _, err := Prepare(context.Background(), f, int64(len(raw)), "photo.jpg"); err != nil {
			b.Fatal(err)
		}
	}
	direct := func() {
		img, err := imaging.Decode(bytes.NewReader(raw), imaging.AutoOrientation(true))
		if err != nil {
			b.Fatal(err)
		}
		img = imaging.Fit(img, document.MaxLongSide, document.MaxLongSide, imaging.Lanczos)
		if err := jpeg.Encode(io.Discard, img, &jpeg.Options{Quality: JPEGQuality}); err != nil {
			b.Fatal(err)
		}
	}
	var ours, theirs []time.Duration
	timed := func(f func()) time.Duration { t := time.Now(); f(); return time.Since(t) }
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			ours, theirs = append(ours, timed(service)), append(theirs, timed(direct))
		} else {
			theirs, ours = append(theirs, timed(direct)), append(ours, timed(service))
		}
		i++
	}
	b.ReportMetric(float64(median(ours).Milliseconds()), "service-ms")
	b.ReportMetric(float64(median(theirs).Milliseconds()), "imaging-ms")
	b.ReportMetric(float64(median(ours))/float64(median(theirs)), "ratio")
	b.ReportMetric(float64(len(raw))/1e6, "input-MB")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
