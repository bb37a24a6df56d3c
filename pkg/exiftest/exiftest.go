// Package exiftest writes the EXIF a phone puts in a photo (capture time
// and GPS position), for tests of what a service reads from photos or
// strips from them.
package exiftest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// TIFF is a big-endian EXIF TIFF block with IFD0 (DateTime, GPS pointer) and a
// GPS IFD (latitude and longitude with their references).
func TIFF(lat, lng float64, taken time.Time) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.BigEndian, v) }
	entry := func(tag, typ uint16, count, value uint32) { w(tag); w(typ); w(count); w(value) }
	b.WriteString("MM\x00\x2A")
	w(uint32(8))
	w(uint16(2)) // IFD0 at 8
	entry(0x0132, 2, 20, 38)
	entry(0x8825, 4, 1, 58)
	w(uint32(0))
	b.WriteString(taken.Format("2006:01:02 15:04:05") + "\x00") // at 38, 20 bytes
	w(uint16(4))                                                // GPS IFD at 58
	ref := func(s string) uint32 { return uint32(s[0]) << 24 }
	latRef, lngRef := "N", "E"
	if lat < 0 {
		latRef, lat = "S", -lat
	}
	if lng < 0 {
		lngRef, lng = "W", -lng
	}
	entry(0x0001, 2, 2, ref(latRef))
	entry(0x0002, 5, 3, 112)
	entry(0x0003, 2, 2, ref(lngRef))
	entry(0x0004, 5, 3, 136)
	w(uint32(0))
	for _, v := range []float64{lat, lng} { // at 112 and 136
		deg := math.Floor(v)
		mins := math.Floor((v - deg) * 60)
		secs := ((v-deg)*60 - mins) * 60
		for _, r := range [][2]uint32{{uint32(deg), 1}, {uint32(mins), 1}, {uint32(secs * 1000), 1000}} {
			w(r[0])
			w(r[1])
		}
	}
	if b.Len() != 160 {
		panic(fmt.Sprintf("exif layout: %d bytes", b.Len()))
	}
	return b.Bytes()
}

// JPEG returns jpeg (a JPEG file) with tiff inserted as its APP1 Exif
// segment, right after the start-of-image marker, where phones put it.
func JPEG(jpeg, tiff []byte) []byte {
	app1 := append([]byte{0xFF, 0xE1, 0, 0}, append([]byte("Exif\x00\x00"), tiff...)...)
	binary.BigEndian.PutUint16(app1[2:], uint16(len(app1)-2))
	return append(append([]byte{0xFF, 0xD8}, app1...), jpeg[2:]...)
}
