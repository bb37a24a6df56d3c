// Copyright ©2026 The go-pdf Authors. All rights reserved.
// Use of this source code is governed by a MIT-style
// license that can be found in the LICENSE file.

package fpdf

import (
	"bytes"
	"compress/zlib"
	"os"
	"testing"
	"time"
)

var time0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// The reporting service's font (this module has no font files of its own).
const kycTestFont = "../../services/reporting/internal/pdf/fonts/DejaVuSans.ttf"

// kycDoc is a two-page document in the font, written with its objects in
// a fixed order so that two runs can be compared byte for byte.
func kycDoc(t *testing.T, ttf []byte) []byte {
	t.Helper()
	b, err := kycWrite(ttf)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func kycWrite(ttf []byte) ([]byte, error) {
	f := New("P", "mm", "A4", "")
	f.SetCatalogSort(true)
	f.SetCreationDate(time0)
	f.SetModificationDate(time0)
	f.AddUTF8FontFromBytes("dejavu", "", ttf)
	f.SetFont("dejavu", "", 12)
	for range 2 {
		f.AddPage()
		f.MultiCell(0, 6, "Adéwálé Ọláyínká, 12 Adeola Odeku Street, Victoria Island ₦ ẹ ọ ṣ ɓ ɗ", "", "L", false)
	}
	var buf bytes.Buffer
	err := f.Output(&buf)
	return buf.Bytes(), err
}

// TestParsedFontIsReused: a document set in a font parsed and cut for an
// earlier document is the same, byte for byte, as one set in a freshly
// parsed font.
func TestParsedFontIsReused(t *testing.T) {
	ttf, err := os.ReadFile(kycTestFont)
	if err != nil {
		t.Fatal(err)
	}
	parsedUTF8Fonts.Lock()
	parsedUTF8Fonts.m = nil
	parsedUTF8Fonts.Unlock()
	cutCMAPs.Lock()
	cutCMAPs.m = nil
	cutCMAPs.Unlock()
	resetCuts()
	cold := kycDoc(t, ttf)
	parsedUTF8Fonts.Lock()
	cutCMAPs.Lock()
	n, m := len(parsedUTF8Fonts.m), len(cutCMAPs.m)
	cutCMAPs.Unlock()
	parsedUTF8Fonts.Unlock()
	if n != 1 || m != 1 {
		t.Fatalf("%d fonts parsed and %d character maps read, want 1 and 1", n, m)
	}
	if warm := kycDoc(t, ttf); !bytes.Equal(cold, warm) {
		t.Fatal("the document differs when its font was parsed before")
	}
}

// TestReusedCompressorWritesTheSameStream: a pooled zlib writer gives the
// bytes a new one does.
func TestReusedCompressorWritesTheSameStream(t *testing.T) {
	data := bytes.Repeat([]byte("BT /F1 12 Tf (KYC report) Tj ET\n"), 2000)
	var fresh bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&fresh, zlib.BestSpeed)
	zw.Write(data)
	zw.Close()
	for range 3 {
		mem := xmem.compress(bytes.Repeat([]byte{7}, 100000)) // dirty a pooled writer
		mem.release()
		mem = xmem.compress(data)
		if !bytes.Equal(mem.bytes(), fresh.Bytes()) {
			t.Fatal("a pooled writer's stream differs from a new writer's")
		}
		mem.release()
	}
}

// TestDocumentsShareParsedFontsConcurrently: documents set at the same
// time in one font (the reporting service's render workers) come out as
// one set alone (run with -race: the shared widths and character map are
// only read).
func TestDocumentsShareParsedFontsConcurrently(t *testing.T) {
	ttf, err := os.ReadFile(kycTestFont)
	if err != nil {
		t.Fatal(err)
	}
	want := kycDoc(t, ttf)
	got := make([][]byte, 4)
	errs := make([]error, len(got))
	done := make(chan int)
	for i := range got {
		go func() {
			got[i], errs[i] = kycWrite(ttf)
			done <- i
		}()
	}
	for range got {
		<-done
	}
	for i, g := range got {
		if errs[i] != nil || !bytes.Equal(g, want) {
			t.Errorf("document %d differs (%v)", i, errs[i])
		}
	}
}

func resetCuts() {
	cutFonts.Lock()
	cutFonts.m = nil
	cutFonts.Unlock()
}

func cuts() int {
	cutFonts.Lock()
	defer cutFonts.Unlock()
	return len(cutFonts.m)
}

// textDoc is a one-page document of text in the font, encrypted when
// protect.
func textDoc(t *testing.T, ttf []byte, text string, protect bool) []byte {
	t.Helper()
	f := New("P", "mm", "A4", "")
	f.SetCatalogSort(true)
	f.SetCreationDate(time0)
	f.SetModificationDate(time0)
	if protect {
		f.SetProtection(0, "", "owner")
	}
	f.AddUTF8FontFromBytes("dejavu", "", ttf)
	f.SetFont("dejavu", "", 12)
	f.AddPage()
	f.MultiCell(0, 6, text, "", "L", false)
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDocumentsShareOneCut: documents whose runes are all base runes share
// one subset (cut once); a rune beyond them gets a subset of its own; an
// encrypted document, which encrypts its streams in place, leaves the
// shared subset as it was.
func TestDocumentsShareOneCut(t *testing.T) {
	ttf, err := os.ReadFile(kycTestFont)
	if err != nil {
		t.Fatal(err)
	}
	resetCuts()
	first := textDoc(t, ttf, "Ngozi Okafor, 14 Adebayo Road", false)
	textDoc(t, ttf, "Chinedu Eze — ₦5,000 · 3 “Main” Street ↑ § ±", false)
	if n := cuts(); n != 1 {
		t.Fatalf("%d subsets cut for two documents in base runes, want 1", n)
	}
	textDoc(t, ttf, "Adébáyọ̀ Ọláyínká", false)
	textDoc(t, ttf, "Ọláyínká Adébáyọ̀", false)
	if n := cuts(); n != 2 {
		t.Fatalf("%d subsets after two documents with the same diacritics, want 2", n)
	}
	textDoc(t, ttf, "Ngozi Okafor, 14 Adebayo Road", true)
	if again := textDoc(t, ttf, "Ngozi Okafor, 14 Adebayo Road", false); !bytes.Equal(again, first) {
		t.Fatal("after an encrypted document, the same document differs")
	}
	resetCuts()
	if cold := textDoc(t, ttf, "Ngozi Okafor, 14 Adebayo Road", false); !bytes.Equal(cold, first) {
		t.Fatal("a document with a shared subset differs from one cut afresh")
	}
}
