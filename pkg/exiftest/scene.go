package exiftest

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
)

// Scene is a photo-like 320x240 JPEG: a gradient and ten blocks placed by
// (seed, stream), so two seeds are two pictures to a perceptual hash, and
// quality changes the file, not the picture.
func Scene(seed, stream uint64, quality int) []byte {
	r := rand.New(rand.NewPCG(seed, stream))
	img := image.NewRGBA(image.Rect(0, 0, 320, 240))
	for y := range 240 {
		for x := range 320 {
			img.Set(x, y, color.RGBA{uint8(100 + y/3), uint8(150 + x/7), 230, 255})
		}
	}
	for range 10 {
		x0, y0, c := r.IntN(320), 80+r.IntN(160), color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255}
		for y := y0; y < min(240, y0+30+r.IntN(80)); y++ {
			for x := x0; x < min(320, x0+40+r.IntN(80)); x++ {
				img.Set(x, y, c)
			}
		}
	}
	var b bytes.Buffer
	_ = jpeg.Encode(&b, img, &jpeg.Options{Quality: quality}) // cannot fail writing to a buffer
	return b.Bytes()
}
