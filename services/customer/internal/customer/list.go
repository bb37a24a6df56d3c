package customer

import (
	"context"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// List paging limits.
const (
	DefaultLimit = 20
	MaxLimit     = 100
	// MaxOffset bounds page-number paging: deeper pages cost a scan of
	// every skipped row, so they are reached with the cursor instead.
	MaxOffset = 10000
	// CountCap bounds the exact count of a search: counting every match
	// of a broad term in a million customers costs over 100 ms, counting
	// the first thousand about a tenth of that. Larger totals are reported
	// as CountCap with totalExact false; unfiltered and status totals are
	// always exact (kept in counters).
	CountCap  = 1000
	maxSearch = 100
)

// Cursor marks the last customer of a page, for keyset paging.
type Cursor struct {
	CreatedAt time.Time
	ID        string
}

// Encode returns the opaque form given to clients.
func (c Cursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.CreatedAt.UnixMicro(), 10) + "." + c.ID))
}

// DecodeCursor parses an opaque cursor.
func DecodeCursor(s string) (Cursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, false
	}
	ts, id, ok := strings.Cut(string(raw), ".")
	micros, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil || !ids.Valid("cus", id) {
		return Cursor{}, false
	}
	return Cursor{CreatedAt: time.UnixMicro(micros).UTC(), ID: id}, true
}

// ListQuery is a validated list request.
type ListQuery struct {
	OrgID, Env string
	Page       int // 0 when Cursor is used
	Limit      int
	Status     string
	Search     Search
	Cursor     *Cursor
}

// Offset of the first row of the page. It saturates at MaxOffset: a
// page number large enough to overflow the product (9223372036854775807)
// must read as too deep, not wrap to a negative OFFSET.
func (q ListQuery) Offset() int {
	if q.Page <= 1 {
		return 0
	}
	if q.Page-1 >= MaxOffset/max(q.Limit, 1) {
		return MaxOffset
	}
	return (q.Page - 1) * q.Limit
}

// Page is one page of customers.
type Page struct {
	Customers  []Customer
	Total      int64
	TotalExact bool
	HasNext    bool
	NextCursor string
}

// RawListQuery is the list request as received.
type RawListQuery struct {
	Page, Limit, Status, Search, Cursor *string
}

// ParseListQuery validates paging, filter and search parameters; out of
// range values are errors, not silently clamped.
func ParseListQuery(who Caller, raw RawListQuery) (ListQuery, error) {
	q := ListQuery{OrgID: who.OrgID, Env: who.Env, Page: 1, Limit: DefaultLimit}
	var ck apperr.Checker
	if refuseUnstorable(&ck, raw) {
		return q, ck.Err()
	}
	// intParam parses an integer in [min, max]; max 0 means no upper bound.
	intParam := func(name string, v *string, min, max int, dst *int) {
		if v == nil {
			return
		}
		n, err := strconv.Atoi(strings.TrimSpace(*v))
		if err != nil || n < min || (max > 0 && n > max) {
			if max == 0 {
				ck.Fail(name, "must be an integer of at least %d", min)
			} else {
				ck.Fail(name, "must be an integer from %d to %d", min, max)
			}
			return
		}
		*dst = n
	}
	intParam("limit", raw.Limit, 1, MaxLimit, &q.Limit)
	intParam("page", raw.Page, 1, 0, &q.Page)
	if raw.Status != nil && *raw.Status != "" {
		s := strings.ToUpper(strings.TrimSpace(*raw.Status))
		if !slices.Contains(CustomerStatuses, s) {
			ck.Fail("status", "must be one of %s", strings.Join(CustomerStatuses, ", "))
		}
		q.Status = s
	}
	if raw.Search != nil && strings.TrimSpace(*raw.Search) != "" {
		if utf8.RuneCountInString(*raw.Search) > maxSearch {
			ck.Fail("search", "must be at most %d characters", maxSearch)
		} else {
			q.Search = ParseSearch(*raw.Search)
		}
	}
	if raw.Cursor != nil && *raw.Cursor != "" {
		c, ok := DecodeCursor(*raw.Cursor)
		switch {
		case !ok:
			ck.Fail("cursor", "is not a cursor returned by this endpoint")
		case raw.Page != nil:
			ck.Fail("page", "cannot be combined with cursor")
		default:
			q.Cursor, q.Page = &c, 0
		}
	}
	if q.Cursor == nil && q.Offset() >= MaxOffset {
		ck.Fail("page", "is beyond the first %d results; continue with the cursor from pagination.nextCursor or narrow the search", MaxOffset)
	}
	return q, ck.Err()
}

// refuseUnstorable records every parameter holding invalid UTF-8 or NUL,
// and reports whether there was one. Postgres refuses such text (the
// search reached it as "invalid byte sequence": a 500), and nothing
// else about the query is worth checking then.
func refuseUnstorable(ck *apperr.Checker, raw RawListQuery) bool {
	bad := false
	for _, p := range []struct {
		name string
		v    *string
	}{{"page", raw.Page}, {"limit", raw.Limit}, {"status", raw.Status}, {"search", raw.Search}, {"cursor", raw.Cursor}} {
		if p.v != nil && (!utf8.ValidString(*p.v) || strings.IndexByte(*p.v, 0) >= 0) {
			ck.Fail(p.name, "must be valid UTF-8 text without NUL characters")
			bad = true
		}
	}
	return bad
}

// List returns a page of the caller's live customers, newest first.
func (s *Service) List(ctx context.Context, q ListQuery) (Page, error) {
	return s.store.List(ctx, q)
}
