// Copyright ©2026 The go-pdf Authors. All rights reserved.
// Use of this source code is governed by a MIT-style
// license that can be found in the LICENSE file.

// kyc patch: what a UTF-8 font costs every document, done once per font
// file instead (README.md in this directory says why and what it saved).

package fpdf

import (
	"crypto/sha1"
	"fmt"
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
