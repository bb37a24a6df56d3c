package photohash

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/nfnt/resize"
)

// scene is a synthetic photo: a sky gradient and seeded coloured blocks
// (buildings), so that two seeds are two different pictures.
func scene(seed uint64, w, h int) image.Image {
	r := rand.New(rand.NewPCG(seed, seed))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(100 + 100*y/h), uint8(150 + 50*x/w), 230, 255})
		}
	}
	for range 12 {
		x0, y0 := r.IntN(w), h/3+r.IntN(h*2/3)
		bw, bh := w/8+r.IntN(w/4), h/6+r.IntN(h/3)
		c := color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255}
		for y := y0; y < min(h, y0+bh); y++ {
			for x := x0; x < min(w, x0+bw); x++ {
				img.Set(x, y, c)
			}
		}
	}
	return img
}

func encodeJPEG(t testing.TB, img image.Image, q int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func hashOf(t *testing.T, b []byte) uint64 {
	t.Helper()
	h, ok := Of(bytes.NewReader(b))
	if !ok {
		t.Fatal("no hash")
	}
	return h
}

func TestTheSamePictureIsNearAnotherIsNot(t *testing.T) {
	orig := scene(1, 800, 600)
	h := hashOf(t, encodeJPEG(t, orig, 90))
	var png1 bytes.Buffer
	if err := png.Encode(&png1, orig); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"re-encoded at quality 40": encodeJPEG(t, orig, 40),
		"resized to half":          encodeJPEG(t, resize.Resize(400, 0, orig, resize.Bilinear), 85),
		"as a PNG":                 png1.Bytes(),
	} {
		if d := Distance(h, hashOf(t, b)); d > MaxDistance {
			t.Errorf("%s: %d bits apart, want at most %d", name, d, MaxDistance)
		}
	}
	for seed := uint64(2); seed < 12; seed++ {
		if d := Distance(h, hashOf(t, encodeJPEG(t, scene(seed, 800, 600), 90))); d <= MaxDistance {
			t.Errorf("another picture (seed %d) is only %d bits apart", seed, d)
		}
	}
}

func TestNoHashForWhatCannotBeJudged(t *testing.T) {
	flat := encodeJPEG(t, image.NewRGBA(image.Rect(0, 0, 64, 48)), 90)
	huge := encodeJPEG(t, image.NewGray(image.Rect(0, 0, 5000, 3201)), 10) // 16.0 MP + 1 row
	for name, b := range map[string][]byte{"a black frame": flat, "over 16 MP": huge, "not an image": []byte("hello"), "empty": nil,
		"a cut JPEG": encodeJPEG(t, scene(1, 400, 300), 90)[:2000]} {
		if h, ok := Of(bytes.NewReader(b)); ok {
			t.Errorf("%s: hash %x", name, h)
		}
	}
}

func TestInformativeAtTheEdges(t *testing.T) {
	for _, tc := range []struct {
		h    uint64
		want bool
	}{{0, false}, {0x7f, false}, {0xff, true}, {^uint64(0) >> 8, true}, {^uint64(0) >> 7, false}, {^uint64(0), false}} {
		if got := Informative(tc.h); got != tc.want {
			t.Errorf("Informative(%x) = %v", tc.h, got)
		}
	}
}

func TestNearAtTheEdge(t *testing.T) {
	h := uint64(0x0123456789abcdef)
	if !Near(h, h^0b1111) || Near(h, h^0b11111) {
		t.Fatal("4 bits apart is near, 5 is not")
	}
}

func TestStreamHashesWhatIsCopiedThrough(t *testing.T) {
	b := encodeJPEG(t, scene(3, 1000, 750), 85)
	s := NewStream()
	var out bytes.Buffer
	if _, err := io.Copy(io.MultiWriter(&out, s), bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	h, ok := s.Sum(nil)
	if !ok || h != hashOf(t, b) || !bytes.Equal(out.Bytes(), b) {
		t.Fatalf("stream: %x %v", h, ok)
	}
	// Cut short: no hash, and nothing blocks.
	s = NewStream()
	_, _ = s.Write(b[:1000])
	if _, ok := s.Sum(errors.New("client went away")); ok {
		t.Fatal("a cut upload has a hash")
	}
	// Not an image: the writer is drained, never blocked.
	s = NewStream()
	for range 100 {
		_, _ = s.Write(bytes.Repeat([]byte("x"), 64<<10))
	}
	if _, ok := s.Sum(nil); ok {
		t.Fatal("text has a hash")
	}
}

// FuzzBandsFindEveryNearHash: any hash within 3 bits of another shares
// one of its four bands exactly, so the indexed lookup cannot miss it.
func FuzzBandsFindEveryNearHash(f *testing.F) {
	f.Add(uint64(0), uint8(0), uint8(17), uint8(63))
	f.Add(uint64(0xdeadbeefcafef00d), uint8(15), uint8(16), uint8(47))
	f.Fuzz(func(t *testing.T, h uint64, a, b, c uint8) {
		other := h ^ 1<<(a%64) ^ 1<<(b%64) ^ 1<<(c%64)
		x, y := Bands(h), Bands(other)
		if x[0] != y[0] && x[1] != y[1] && x[2] != y[2] && x[3] != y[3] {
			t.Fatalf("%x and %x are %d bits apart and share no band", h, other, Distance(h, other))
		}
	})
}

// FuzzOf: any bytes an agent uploads are judged without a panic.
func FuzzOf(f *testing.F) {
	f.Add([]byte("\xff\xd8\xff\xe0"))
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, b []byte) { Of(bytes.NewReader(b)) })
}

// BenchmarkPerceptualHash2000px is the hash of one 2000x1500 phone photo,
// decoding included (what an upload adds).
func BenchmarkPerceptualHash2000px(b *testing.B) {
	photo := encodeJPEG(b, scene(7, 2000, 1500), 85)
	b.SetBytes(int64(len(photo)))
	for b.Loop() {
		if _, ok := Of(bytes.NewReader(photo)); !ok {
			b.Fatal("no hash")
		}
	}
}
