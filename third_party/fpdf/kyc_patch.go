// Copyright ©2026 The go-pdf Authors. All rights reserved.
// Use of this source code is governed by a MIT-style
// license that can be found in the LICENSE file.

// kyc patch: what a UTF-8 font costs every document, done once per font
// file instead (README.md in this directory says why and what it saved).

package fpdf

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"sort"
	"sync"
)

// generateUTF8FontID generates a UTF-8 font's Id from its type, its key
// (family and style) and the SHA-1 of its TrueType file, from which every
// other field of its definition is parsed. generateFontID's json.Marshal
// of the 65,536-entry width table cost more than the SHA-1 of the whole
// file.
func generateUTF8FontID(fdt fontDefType, ttfSum [sha1.Size]byte) string {
	h := sha1.New()
	h.Write([]byte(fdt.Tp))
	h.Write([]byte{0})
	h.Write([]byte(fdt.Name))
	h.Write([]byte{0})
	h.Write(ttfSum[:])
	return fmt.Sprintf("%x", h.Sum(nil))
}

// maxParsedUTF8Fonts bounds parsedUTF8Fonts: a program that adds ever new
// font files parses each again once the cache is full, as it did before.
const maxParsedUTF8Fonts = 16

// parsedUTF8Fonts are the metrics parseFile read from each TrueType file,
// by the file's SHA-1. Only what a font's definition takes from the parse
// is kept: GenerateCutFont, the only other user of a utf8FontFile, starts
// from the file's bytes again and replaces CharWidths with a new slice, so
// the widths shared between documents are only read.
var parsedUTF8Fonts struct {
	sync.Mutex
	m map[[sha1.Size]byte]utf8FontFile
}

// parseUTF8Font returns utf8Bytes parsed for a font's definition, and
// their SHA-1.
func parseUTF8Font(utf8Bytes []byte) (*utf8FontFile, [sha1.Size]byte, error) {
	sum := sha1.Sum(utf8Bytes)
	reader := &fileReader{array: utf8Bytes}
	parsedUTF8Fonts.Lock()
	parsed, ok := parsedUTF8Fonts.m[sum]
	parsedUTF8Fonts.Unlock()
	if ok {
		parsed.fileReader = reader
		parsed.sum = sum
		return &parsed, sum, nil
	}
	utf8File := newUTF8Font(reader)
	utf8File.sum = sum
	if err := utf8File.parseFile(); err != nil {
		return nil, sum, err
	}
	parsedUTF8Fonts.Lock()
	defer parsedUTF8Fonts.Unlock()
	if len(parsedUTF8Fonts.m) >= maxParsedUTF8Fonts || parsedUTF8Fonts.m == nil {
		parsedUTF8Fonts.m = make(map[[sha1.Size]byte]utf8FontFile)
	}
	parsedUTF8Fonts.m[sum] = utf8FontFile{
		Ascent:             utf8File.Ascent,
		Descent:            utf8File.Descent,
		Bbox:               utf8File.Bbox,
		CapHeight:          utf8File.CapHeight,
		StemV:              utf8File.StemV,
		ItalicAngle:        utf8File.ItalicAngle,
		Flags:              utf8File.Flags,
		UnderlinePosition:  utf8File.UnderlinePosition,
		UnderlineThickness: utf8File.UnderlineThickness,
		CharWidths:         utf8File.CharWidths,
		DefaultWidth:       utf8File.DefaultWidth,
	}
	return utf8File, sum, nil
}

// cutCMAPs are the character maps GenerateCutFont reads from each font
// file (generateCMAP's charSymbolDictionary), by the file's SHA-1; nil
// when the file has no Unicode map. parseSymbols only reads them.
var cutCMAPs struct {
	sync.Mutex
	m map[[sha1.Size]byte]map[int]int
}

// cutCMAP sets utf.charSymbolDictionary as generateCMAP does, reading
// the file only the first time; false when it has no Unicode map.
func (utf *utf8FontFile) cutCMAP() bool {
	if utf.sum == ([sha1.Size]byte{}) {
		return utf.generateCMAP() != nil
	}
	cutCMAPs.Lock()
	m, ok := cutCMAPs.m[utf.sum]
	cutCMAPs.Unlock()
	if ok {
		utf.charSymbolDictionary = m
		return m != nil
	}
	if utf.generateCMAP() == nil {
		utf.charSymbolDictionary = nil
	}
	cutCMAPs.Lock()
	defer cutCMAPs.Unlock()
	if len(cutCMAPs.m) >= maxParsedUTF8Fonts || cutCMAPs.m == nil {
		cutCMAPs.m = make(map[[sha1.Size]byte]map[int]int)
	}
	cutCMAPs.m[utf.sum] = utf.charSymbolDictionary
	return utf.charSymbolDictionary != nil
}

// cutFont is what putfonts writes for a UTF-8 font's subset, apart from
// the object numbers: it depends only on the font file and the runes cut.
type cutFont struct {
	size   int    // the subset's length before compression (/Length1)
	file   []byte // the subset, compressed
	cidMap []byte // the CIDToGIDMap, compressed
	widths []byte // the /W array generateCIDFontMap wrote
}

// maxCutFonts bounds cutFonts; at about 60 KB an entry (two subsets'
// worth for a report's two faces is about half of that), 64 entries.
const maxCutFonts = 64

// cutFonts are the subsets documents wrote, by font file and runes. Every
// document cut, compressed and mapped its own subset (a fifth of a
// sandbox report's render, BENCHMARKS.md section 18), though documents
// of one kind use nearly the same runes: with baseRunes added to every
// subset, they use exactly the same ones.
var cutFonts struct {
	sync.Mutex
	m map[string]*cutFont
}

// baseRunes are cut into every subset of a font parsed by parseUTF8Font:
// printable ASCII and the few other signs a KYC report's layout and
// money use (the middle dot, section sign, plus-minus, quotes and dashes,
// the naira sign, arrows). A document whose runes are all among them
// shares its subset with every other such document; one with more (a
// name's diacritics) gets the base and its own, cut once and then shared
// by the documents with the same. Only these few are added: each glyph
// weighs on every document (all of Latin-1 and Latin Extended made a
// one-address report 106-152 KB instead of 66 KB; this set, about 84 KB).
var baseRunes = func() []int {
	var rs []int
	for c := 0x20; c <= 0x7e; c++ {
		rs = append(rs, c)
	}
	return append(rs, 0xa7, 0xb1, 0xb7, 0x2013, 0x2014, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2026,
		0x20a6, 0x2190, 0x2191, 0x2192, 0x2193)
}()

// withBaseRunes returns used (rune to rune, as fpdf keeps them) with
// baseRunes added, and the key naming the set among one file's subsets.
func withBaseRunes(used map[int]int) (map[int]int, string) {
	all := make(map[int]int, len(used)+len(baseRunes))
	for k, v := range used {
		all[k] = v
	}
	for _, r := range baseRunes {
		if all[r] == 0 {
			all[r] = r
		}
	}
	keys := make([]int, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	h := sha1.New()
	var b [16]byte
	for _, k := range keys {
		binary.BigEndian.PutUint64(b[:8], uint64(k))
		binary.BigEndian.PutUint64(b[8:], uint64(all[k]))
		h.Write(b[:])
	}
	return all, string(h.Sum(nil))
}

// utf8Cut returns font's subset for the runes used, cut once per process
// and set of runes (with baseRunes) when the font was parsed by
// parseUTF8Font. The widths are written by generateCIDFontMap into the
// document's buffer and taken back out of it.
func (f *Fpdf) utf8Cut(font *fontDefType, used map[int]int) *cutFont {
	sum := font.utf8File.sum
	if sum == ([sha1.Size]byte{}) {
		return f.cutUTF8(font, used)
	}
	all, runes := withBaseRunes(used)
	key := string(sum[:]) + runes
	cutFonts.Lock()
	c, ok := cutFonts.m[key]
	cutFonts.Unlock()
	if ok {
		return c
	}
	c = f.cutUTF8(font, all)
	cutFonts.Lock()
	defer cutFonts.Unlock()
	if len(cutFonts.m) >= maxCutFonts || cutFonts.m == nil {
		cutFonts.m = make(map[string]*cutFont)
	}
	cutFonts.m[key] = c
	return c
}

// cutUTF8 is upstream's cut of font to used, its CIDToGIDMap and its
// widths, as putfonts wrote them.
func (f *Fpdf) cutUTF8(font *fontDefType, used map[int]int) *cutFont {
	stream := font.utf8File.GenerateCutFont(used)
	codes := font.utf8File.CodeSymbolDictionary
	delete(codes, 0)
	c := &cutFont{size: len(stream)}

	widthsFont := *font
	widthsFont.usedRunes = used
	start := f.buffer.Len()
	f.generateCIDFontMap(&widthsFont, font.utf8File.LastRune)
	c.widths = append([]byte(nil), f.buffer.Bytes()[start:]...)
	f.buffer.Truncate(start)

	cidToGidMap := make([]byte, 256*256*2)
	for cc, glyph := range codes {
		cidToGidMap[cc*2] = byte(glyph >> 8)
		cidToGidMap[cc*2+1] = byte(glyph & 0xFF)
	}
	mem := xmem.compress(cidToGidMap)
	c.cidMap = mem.copy()
	mem.release()
	mem = xmem.compress(stream)
	c.file = mem.copy()
	mem.release()
	return c
}

// putSharedStream is putstream for bytes other documents share (a
// cutFont's): encryption works in place, so an encrypted document
// encrypts its own copy.
func (f *Fpdf) putSharedStream(b []byte) {
	if f.protect.encrypted {
		b = append([]byte(nil), b...)
	}
	f.putstream(b)
}
