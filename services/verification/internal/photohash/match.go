package photohash

import "math/bits"

// MaxDistance is the largest Hamming distance between two perceptual
// hashes of the same picture: re-encoding and resizing a photo move its
// pHash by 0-2 bits; two different photos of similar buildings are
// usually 20 or more apart.
const MaxDistance = 4

// Bands splits a hash into four 16-bit bands, each indexed: two hashes
// within 3 bits share at least one band exactly (pigeonhole), so a
// lookup by "any band equal" finds every such match without comparing
// against every stored hash; one 4 bits away is found unless each band
// differs by one bit.
func Bands(h uint64) [4]int32 {
	return [4]int32{int32(h >> 48 & 0xffff), int32(h >> 32 & 0xffff), int32(h >> 16 & 0xffff), int32(h & 0xffff)}
}

// Distance is the number of bits in which a and b differ.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// Near reports whether two perceptual hashes are of the same picture.
func Near(a, b uint64) bool { return Distance(a, b) <= MaxDistance }
