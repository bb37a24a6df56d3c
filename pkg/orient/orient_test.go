package orient

import (
	"image"
	"image/color"
	"strings"
	"testing"
)

// A photo taken with the phone held upright (sensor rows sideways, EXIF
// orientation 6) comes out taller than wide with its top-left corner
// where the camera's bottom-left was; every orientation keeps the pixels.
func TestUpright(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	img.Set(0, 0, color.NRGBA{255, 0, 0, 255}) // marker at the sensor's top-left
	cases := []struct {
		o          int
		w, h       int
		markX, mkY int
	}{
		{1, 4, 2, 0, 0}, {2, 4, 2, 3, 0}, {3, 4, 2, 3, 1}, {4, 4, 2, 0, 1},
		{5, 2, 4, 0, 0}, {6, 2, 4, 1, 0}, {7, 2, 4, 1, 3}, {8, 2, 4, 0, 3}, {0, 4, 2, 0, 0}, {9, 4, 2, 0, 0},
	}
	for _, c := range cases {
		got := Upright(img, c.o)
		b := got.Bounds()
		if b.Dx() != c.w || b.Dy() != c.h {
			t.Errorf("orientation %d: %dx%d, want %dx%d", c.o, b.Dx(), b.Dy(), c.w, c.h)
			continue
		}
		if r, _, _, _ := got.At(c.markX, c.mkY).RGBA(); r>>8 != 255 {
			t.Errorf("orientation %d: the marker is not at (%d,%d)", c.o, c.markX, c.mkY)
		}
	}
}

func TestOfWithoutExifIsUpright(t *testing.T) {
	if o := Of(strings.NewReader("not a JPEG")); o != 1 {
		t.Fatalf("no EXIF: %d", o)
	}
}
