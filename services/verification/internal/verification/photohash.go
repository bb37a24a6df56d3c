package verification

import "github.com/kycfield/kyc/services/verification/internal/photohash"

// PhotoHash is a photo file's fingerprint: its SHA-256, and its
// perceptual hash (nil when the image could not be judged).
type PhotoHash struct {
	SHA256     []byte
	Perceptual *uint64
}

// StoredHash is a fingerprint already stored for a photo, with where it
// was submitted: a candidate match for a new photo.
type StoredHash struct {
	PhotoID, AddressID, OrgID, Env string
	PhotoHash
}

// PhotoMatch is a photo found to be another address's photo again: kept
// for operations (which photo, address and organization it matched),
// never shown to a lender.
type PhotoMatch struct {
	PhotoID, AddressID, OrgID, Env string
	MatchedPhotoID                 string
	MatchedAddressID               string
	MatchedOrgID, MatchedEnv       string
	// Kind is MatchSameFile (equal SHA-256) or MatchLooksSame (perceptual
	// hashes within photohash.MaxDistance bits); Distance is in bits.
	Kind     string
	Distance int
}

// Kinds of PhotoMatch.
const (
	MatchSameFile  = "SAME_FILE"
	MatchLooksSame = "LOOKS_SAME"
)

// matchesOf keeps the candidates that are the photo again: the same
// file, or the same picture by its perceptual hash.
func matchesOf(p Photo, j Job, candidates []StoredHash) []PhotoMatch {
	var out []PhotoMatch
	for _, c := range candidates {
		if c.AddressID == j.AddressID {
			continue // the same address may photograph its gate twice
		}
		m := PhotoMatch{PhotoID: p.ID, AddressID: j.AddressID, OrgID: j.OrgID, Env: j.Env, MatchedPhotoID: c.PhotoID,
			MatchedAddressID: c.AddressID, MatchedOrgID: c.OrgID, MatchedEnv: c.Env}
		switch {
		case string(c.SHA256) == string(p.Hash.SHA256):
			m.Kind = MatchSameFile
		case c.Perceptual != nil && p.Hash.Perceptual != nil && photohash.Near(*c.Perceptual, *p.Hash.Perceptual):
			m.Kind, m.Distance = MatchLooksSame, photohash.Distance(*c.Perceptual, *p.Hash.Perceptual)
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}
