// Package ids makes the platform's identifiers: a short type prefix and a
// UUIDv7 in hex ("cus_0193..."), so ids say what they name, sort by
// creation time and are safe in URLs.
package ids

import (
	"encoding/hex"
	"strings"

	"github.com/google/uuid"
)

// New returns a fresh id with the given prefix.
func New(prefix string) string {
	u := uuid.Must(uuid.NewV7())
	return prefix + "_" + hex.EncodeToString(u[:])
}

// Valid reports whether s is a well-formed id with the given prefix.
// Handlers use it to answer 404 for malformed ids without a query.
func Valid(prefix, s string) bool {
	rest, ok := strings.CutPrefix(s, prefix+"_")
	if !ok || len(rest) != 32 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
