package evidence

import "image"

// boxYCbCr shrinks a decoded JPEG by the integer factor k, averaging each
// k x k block of every plane in place of the pixels: a proper low-pass
// filter at a fraction of a resampling kernel's cost, because it works
// on the planes as decoded (no colour conversion per sample).
func boxYCbCr(src *image.YCbCr, k int) *image.YCbCr {
	b := src.Bounds()
	w, h := b.Dx()/k, b.Dy()/k
	dst := image.NewYCbCr(image.Rect(0, 0, w, h), src.SubsampleRatio)
	boxPlane(dst.Y, dst.YStride, w, h, src.Y, src.YStride, k)
	dw, dh := chromaSize(dst)
	sw, sh := chromaSize(src)
	cw, ch := min(dw, sw/k), min(dh, sh/k)
	for _, p := range [][2][]uint8{{dst.Cb, src.Cb}, {dst.Cr, src.Cr}} {
		boxPlane(p[0], dst.CStride, cw, ch, p[1], src.CStride, k)
		// Subsampled planes round up: an odd width can leave the last
		// chroma column (or row) with no whole block; repeat its neighbour.
		extend(p[0], dst.CStride, cw, ch, dw, dh)
	}
	return dst
}

// extend copies the last filled column and row of a w x h area of a
// plane out to fw x fh.
func extend(p []uint8, stride, w, h, fw, fh int) {
	if w == 0 || h == 0 {
		return
	}
	for y := range h {
		row := p[y*stride:]
		for x := w; x < fw; x++ {
			row[x] = row[w-1]
		}
	}
	for y := h; y < fh; y++ {
		copy(p[y*stride:y*stride+fw], p[(h-1)*stride:(h-1)*stride+fw])
	}
}

func chromaSize(m *image.YCbCr) (int, int) {
	if len(m.Cb) == 0 || m.CStride == 0 {
		return 0, 0
	}
	return m.CStride, len(m.Cb) / m.CStride
}

// boxPlane writes the w x h averages of k x k blocks of src into dst.
func boxPlane(dst []uint8, dstStride, w, h int, src []uint8, srcStride, k int) {
	sums := make([]int, w)
	n := k * k
	for y := range h {
		clear(sums)
		for dy := range k {
			row := src[(y*k+dy)*srcStride:]
			for x := range w {
				s := 0
				for _, v := range row[x*k : x*k+k] {
					s += int(v)
				}
				sums[x] += s
			}
		}
		out := dst[y*dstStride : y*dstStride+w]
		for x := range out {
			out[x] = uint8((sums[x] + n/2) / n)
		}
	}
}
