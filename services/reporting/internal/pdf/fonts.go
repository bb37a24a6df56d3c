package pdf

import (
	_ "embed"
	"reflect"
	"sync"

	"codeberg.org/go-pdf/fpdf"
)

var (
	//go:embed fonts/DejaVuSans.ttf
	regularTTF []byte
	//go:embed fonts/DejaVuSans-Bold.ttf
	boldTTF []byte
)

// Why two copies of each face: upstream fpdf parses the TrueType file it
// is given for every document (AddUTF8FontFromBytes) and cuts the subset
// it embeds from it again when the document is written, and it has no way
// to share a parsed font between documents. Both passes walk every glyph
// and every character map entry of the file: for DejaVu Sans's 6,000
// glyphs that was most of a report's CPU, and reporting was half of the
// platform's (BENCHMARKS.md §18). So each face is cut once per process
// down to the scripts a report almost always needs (commonRanges), and a
// document whose text stays inside them is set in that cut; any other
// document is set in the whole face, as before. Glyphs, advance widths and
// metrics are copied unchanged by the cut, so the two give the same layout
// and the same text layer (TestCommonFaceRendersTheSame), and nothing
// DejaVu covers is lost. (Our copy of fpdf, third_party/fpdf, now also
// parses each file and reads its character map once per process; the cut
// still saves about a sixth of a sandbox report's CPU, BENCHMARKS §18j.)

// commonRanges are the code points of the cut faces: Latin with every
// diacritic Yoruba, Igbo, Hausa and other Nigerian names use (Latin-1,
// Extended-A and -B, IPA letters such as Hausa's ɓ ɗ, combining marks,
// Latin Extended Additional's ẹ ọ ṣ), punctuation, currency (₦), letterlike
// symbols, arrows and mathematical operators. Control characters are kept
// so a stray one in a note lays out as it does with the whole face.
var commonRanges = [][2]rune{
	{0x0001, 0x036F},
	{0x1E00, 0x1EFF},
	{0x2000, 0x22FF},
}

// common reports whether r is in the cut faces.
func common(r rune) bool {
	for _, g := range commonRanges {
		if r >= g[0] && r <= g[1] {
			return true
		}
	}
	return false
}

// cut is each face cut to commonRanges, built once per process (about
// 15 ms each; a tenth of the whole file's size).
var cut = sync.OnceValue(func() [2][]byte {
	var rs []rune
	for _, g := range commonRanges {
		for r := g[0]; r <= g[1]; r++ {
			rs = append(rs, r)
		}
	}
	set := string(rs)
	return [2][]byte{fpdf.UTF8CutFont(regularTTF, set), fpdf.UTF8CutFont(boldTTF, set)}
})

// faces returns the regular and bold TrueType files to set a document
// in: the cut ones unless whole, or unless v holds text outside them.
func faces(v any, whole bool) (regular, bold []byte) {
	if whole || !allCommon(reflect.ValueOf(v)) {
		return regularTTF, boldTTF
	}
	c := cut()
	return c[0], c[1]
}

// allCommon reports whether every string reachable from v (exported
// fields, pointers, slices, maps and their keys) is made of common runes.
// It looks at every string rather than at the fields the layout prints,
// so a field added to the report later is covered without a change here;
// an identifier or URL that is never printed costs only the check.
func allCommon(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		for _, r := range v.String() {
			if !common(r) {
				return false
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return allCommon(v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() && !allCommon(v.Field(i)) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return true // photos and logos: bytes, not text
		}
		for i := range v.Len() {
			if !allCommon(v.Index(i)) {
				return false
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if !allCommon(it.Key()) || !allCommon(it.Value()) {
				return false
			}
		}
	}
	return true
}
