package verification

// PhotoHash is a photo file's fingerprint: its SHA-256, and its
// perceptual hash (nil when the image could not be decoded).
type PhotoHash struct {
	SHA256     []byte
	Perceptual *uint64
}
