// Package orient turns photos upright by their EXIF Orientation: phones
// store the sensor's rows as they come and say in EXIF how the viewer
// must turn them, and neither Go's decoders nor fpdf read it.
package orient

import (
	"image"
	"io"

	"github.com/disintegration/imaging"
	"github.com/rwcarlsen/goexif/exif"
)

// Of returns the EXIF Orientation of the JPEG r holds: 1 (upright) when
// it has none, or is not a JPEG.
func Of(r io.Reader) int {
	x, err := exif.Decode(r)
	if err != nil {
		return 1
	}
	tag, err := x.Get(exif.Orientation)
	if err != nil {
		return 1
	}
	o, err := tag.Int(0)
	if err != nil {
		return 1
	}
	return o
}

// Upright applies what orientation o says the viewer must do. Turning a
// photo copies it, so callers that also shrink it shrink first.
func Upright(img image.Image, o int) image.Image {
	switch o {
	case 2:
		return imaging.FlipH(img)
	case 3:
		return imaging.Rotate180(img)
	case 4:
		return imaging.FlipV(img)
	case 5:
		return imaging.Transpose(img)
	case 6:
		return imaging.Rotate270(img)
	case 7:
		return imaging.Transverse(img)
	case 8:
		return imaging.Rotate90(img)
	}
	return img
}
