// Package photohash fingerprints a photo while it streams to storage: a
// perceptual hash (goimagehash's pHash, 64 bits) that stays within a few
// bits when a photo is re-encoded, resized or lightly edited, so that a
// photo reused for another address is found even when it is not the same
// file.
package photohash

import (
	"bufio"
	"bytes"
	"image"
	_ "image/jpeg" // the photo types the agent API accepts
	_ "image/png"
	"io"
	"math/bits"

	"github.com/corona10/goimagehash"
)

// MaxPixels bounds the images decoded for a hash (a 12 MP phone photo is
// 4032x3024): a larger one is fingerprinted by its SHA-256 alone rather
// than held decoded in memory.
const MaxPixels = 16_000_000

// Informative reports whether a perceptual hash says something about the
// picture: a flat or nearly flat image (a black frame, a blank wall)
// hashes to almost all zeros or ones, and such hashes match each other
// without the photos being the same.
func Informative(h uint64) bool {
	n := bits.OnesCount64(h)
	return n >= 8 && n <= 56
}

// Of decodes an image and returns its perceptual hash; ok is false when
// the image cannot be decoded, is larger than MaxPixels, or its hash is
// not Informative.
func Of(r io.Reader) (hash uint64, ok bool) {
	br := bufio.NewReaderSize(r, 64<<10)
	var head bytes.Buffer
	cfg, _, err := image.DecodeConfig(io.TeeReader(br, &head))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > MaxPixels {
		return 0, false
	}
	img, _, err := image.Decode(io.MultiReader(&head, br))
	if err != nil {
		return 0, false
	}
	h, err := goimagehash.PerceptionHash(img)
	if err != nil || !Informative(h.GetHash()) {
		return 0, false
	}
	return h.GetHash(), true
}

// Stream is a perceptual hash computed from bytes written to it, in a
// goroutine, as they are copied elsewhere (the upload to storage).
type Stream struct {
	w    *io.PipeWriter
	done chan result
}

type result struct {
	hash uint64
	ok   bool
}

// NewStream starts hashing what is written to the Stream.
func NewStream() *Stream {
	pr, pw := io.Pipe()
	s := &Stream{w: pw, done: make(chan result, 1)}
	go func() {
		h, ok := Of(pr)
		_, _ = io.Copy(io.Discard, pr) // never leave the writer blocked
		s.done <- result{h, ok}
	}()
	return s
}

// Write implements io.Writer.
func (s *Stream) Write(p []byte) (int, error) {
	// A failed decode keeps draining, so a write error means Close was
	// called: the bytes still count as written for the copy they join.
	_, _ = s.w.Write(p)
	return len(p), nil
}

// Sum ends the input (err non-nil when it was cut short: no hash then)
// and returns the hash.
func (s *Stream) Sum(err error) (uint64, bool) {
	_ = s.w.CloseWithError(err)
	r := <-s.done
	return r.hash, r.ok && err == nil
}
