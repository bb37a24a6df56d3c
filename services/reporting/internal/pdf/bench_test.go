package pdf_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/kycfield/kyc/services/reporting/internal/evidence"
	"github.com/kycfield/kyc/services/reporting/internal/pdf"
	"github.com/kycfield/kyc/services/reporting/internal/pdfsig"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// original is a 1600x1200 JPEG with photo-like texture (gradients and
// noise: a flat picture would compress, decode and shrink unrealistically
// fast), about the size of a phone photo after a browser upload.
func original(b *testing.B, seed uint64) []byte {
	b.Helper()
	rnd := rand.New(rand.NewPCG(seed, 7))
	img := image.NewRGBA(image.Rect(0, 0, 1600, 1200))
	for y := range 1200 {
		for x := range 1600 {
			n := uint8(rnd.IntN(40))
			img.SetRGBA(x, y, color.RGBA{uint8(x/8) + n, uint8(y/6) + n, uint8((x+y)/14) + n, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// benchContent is a 5-address, 15-photo report and the photos' originals.
func benchContent(b *testing.B) (report.Content, map[string][]byte) {
	b.Helper()
	c := content(5, report.Verified, report.EnvTest)
	originals := map[string][]byte{}
	i := uint64(0)
	for _, a := range c.Outcome.Addresses {
		for _, p := range a.VerificationData.Photos {
			originals[p.ID] = original(b, i)
			i++
		}
	}
	if len(originals) != 15 {
		b.Fatalf("%d photos", len(originals))
	}
	return c, originals
}

// full is the whole per-report work: 15 thumbnails from the originals
// (decode, orient, shrink, encode), then the PDF.
func full(b *testing.B, c report.Content, originals map[string][]byte) []byte {
	photos := make(map[string][]byte, len(originals))
	for u, o := range originals {
		t, err := evidence.Thumbnail(o)
		if err != nil {
			b.Fatal(err)
		}
		photos[u] = t
	}
	c.Photos = photos
	out, err := pdf.Renderer{}.Render(c)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkRender15Photos: the PDF alone, thumbnails ready.
func BenchmarkRender15Photos(b *testing.B) {
	c, originals := benchContent(b)
	c.Photos = map[string][]byte{}
	for u, o := range originals {
		c.Photos[u], _ = evidence.Thumbnail(o)
	}
	var size int
	for b.Loop() {
		out, err := pdf.Renderer{}.Render(c)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size), "bytes/report")
}

// BenchmarkRender1Address: a sandbox customer's report as the pipeline
// makes it (one address, three photos, thumbnails ready): what the fonts
// cost shows most here.
func BenchmarkRender1Address(b *testing.B) {
	c := content(1, report.Verified, report.EnvTest)
	var size int
	for b.Loop() {
		out, err := pdf.Renderer{}.Render(c)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size), "bytes/report")
}

// BenchmarkRender1AddressWholeFaces: BenchmarkRender1Address set in the
// whole font files, as a report with text outside the cut faces is: what
// cutting the faces once per process still saves (fonts.go).
func BenchmarkRender1AddressWholeFaces(b *testing.B) {
	c := content(1, report.Verified, report.EnvTest)
	r := pdf.WholeFaces(pdf.Renderer{})
	var size int
	for b.Loop() {
		out, err := r.Render(c)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size), "bytes/report")
}

// BenchmarkRenderAndSign15Photos: BenchmarkRender15Photos with the
// platform's signature applied, as the service renders every report.
func BenchmarkRenderAndSign15Photos(b *testing.B) {
	c, originals := benchContent(b)
	c.Photos = map[string][]byte{}
	for u, o := range originals {
		c.Photos[u], _ = evidence.Thumbnail(o)
	}
	sig, err := pdfsig.Ephemeral("bench")
	if err != nil {
		b.Fatal(err)
	}
	var size int
	for b.Loop() {
		out, err := pdf.Renderer{Signer: sig}.Render(c)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size), "bytes/report")
}

// BenchmarkThumbnailsAndRender15Photos: thumbnails from 1600x1200
// originals and the PDF, one report at a time.
func BenchmarkThumbnailsAndRender15Photos(b *testing.B) {
	c, originals := benchContent(b)
	var size int
	for b.Loop() {
		size = len(full(b, c, originals))
	}
	b.ReportMetric(float64(size), "bytes/report")
}

// BenchmarkFourConcurrentReports: four reports rendered at once, the
// whole work each; ns/op is per report, so reports/s = 1e9 / ns/op.
func BenchmarkFourConcurrentReports(b *testing.B) {
	c, originals := benchContent(b)
	b.SetParallelism((4 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			full(b, c, originals)
		}
	})
}

// BenchmarkFourConcurrentRenders: four PDFs rendered at once from ready
// thumbnails (a re-render, or photos already small); reports/s = 1e9 /
// ns/op.
func BenchmarkFourConcurrentRenders(b *testing.B) {
	c, originals := benchContent(b)
	c.Photos = map[string][]byte{}
	for u, o := range originals {
		c.Photos[u], _ = evidence.Thumbnail(o)
	}
	b.SetParallelism((4 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := (pdf.Renderer{}).Render(c); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
