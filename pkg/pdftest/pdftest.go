// Package pdftest reads PDFs in tests the way a second, independent reader
// does: with poppler's pdftotext and pdftoppm (Debian's poppler-utils,
// installed by deploy/local/tools.sh). Poppler extracts non-Latin text
// exactly, where pure-Go readers garble it.
package pdftest

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func write(t testing.TB, pdf []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "report.pdf")
	if err := os.WriteFile(p, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is missing: install poppler-utils (deploy/local/tools.sh does)", name)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, stderr.String())
	}
	return out
}

// Text is the whole text layer, in layout order (labels beside values).
func Text(t testing.TB, pdf []byte) string {
	t.Helper()
	return string(run(t, "pdftotext", "-layout", "-enc", "UTF-8", write(t, pdf), "-"))
}

// Pages is the text of each page.
func Pages(t testing.TB, pdf []byte) []string {
	t.Helper()
	// pdftotext ends every page with a form feed.
	pages := strings.Split(Text(t, pdf), "\f")
	return pages[:len(pages)-1]
}

// Page renders page n (from 1) at dpi and decodes it.
func Page(t testing.TB, pdf []byte, n, dpi int) image.Image {
	t.Helper()
	f := write(t, pdf)
	root := filepath.Join(filepath.Dir(f), "page")
	run(t, "pdftoppm", "-png", "-r", strconv.Itoa(dpi), "-f", strconv.Itoa(n), "-l", strconv.Itoa(n), "-singlefile", f, root)
	out, err := os.ReadFile(root + ".png")
	if err != nil {
		t.Fatalf("pdftoppm page %d: %v", n, err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("pdftoppm page %d: not a PNG: %v", n, err)
	}
	return img
}

// Colour is a range of RGB colours (8 bits a channel, bounds included).
type Colour struct{ R, G, B [2]uint8 }

func (c Colour) has(r, g, b uint8) bool {
	return r >= c.R[0] && r <= c.R[1] && g >= c.G[0] && g <= c.G[1] && b >= c.B[0] && b <= c.B[1]
}

// Pixels counts, over every page of pdf drawn by pdftoppm at dpi, the
// pixels whose colour is in c: whether a photo, a marker or a band a
// person would see was drawn, asked of a second, independent reader.
func Pixels(t testing.TB, pdf []byte, dpi int, c Colour) int {
	t.Helper()
	n := 0
	for p := 1; p <= len(Pages(t, pdf)); p++ {
		img := Page(t, pdf, p, dpi)
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if c.has(uint8(r>>8), uint8(g>>8), uint8(bl>>8)) {
					n++
				}
			}
		}
	}
	return n
}
