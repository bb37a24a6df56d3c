package evidence

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/principal"

	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// Store is the part of the reporting bucket the cache uses
// (objstore.Bucket).
type Store interface {
	PutSized(ctx context.Context, key string, r io.Reader, size int64, contentType string) (int64, error)
	Get(ctx context.Context, key string) (io.ReadCloser, error)
}

// Cached keeps each thumbnail in the reporting service's own bucket:
// photos never change, so a later version of a report (an address added
// after the first outcome) decodes only the photos it has not seen. The
// cache is best effort: a store that fails is skipped, not an error.
//
// A thumbnail the source did not have to shrink (a Shrinker that found
// the same bytes among its recent ones: the sandbox's mock photos, shown
// under every sandbox customer's photo ids) is not stored: a later
// version finds it the same way, and storing it was a MinIO write per
// photo per customer for nothing (BENCHMARKS.md §18).
type Cached struct {
	Source report.Evidence
	Store  Store
}

// Shrinker is a source that tells whether it had to shrink the photo
// (Client does).
type Shrinker interface {
	ThumbnailShrunk(ctx context.Context, orgID, env, customerID, photoID string) (b []byte, shrunk bool, err error)
}

// Thumbnail implements report.Evidence.
func (c Cached) Thumbnail(ctx context.Context, orgID, env, customerID, photoID string) ([]byte, error) {
	if !ids.Valid("cus", customerID) || !ids.Valid("pho", photoID) {
		return nil, fmt.Errorf("%w: not a photo id", report.ErrPhotoUnavailable)
	}
	if env != string(principal.EnvLive) {
		// The sandbox's evidence is only ever its mock photos (agents are
		// sent live work only), which the source keeps in memory by
		// content: looking in the bucket first was a MinIO request per
		// photo per sandbox customer that never found anything.
		b, _, err := c.fetch(ctx, orgID, env, customerID, photoID)
		return b, err
	}
	key := "thumbnails/" + orgID + "/" + env + "/" + customerID + "/" + photoID + ".jpg"
	if b, ok := c.get(ctx, key); ok {
		return b, nil
	}
	b, shrunk, err := c.fetch(ctx, orgID, env, customerID, photoID)
	if err == nil && shrunk {
		_, _ = c.Store.PutSized(ctx, key, bytes.NewReader(b), int64(len(b)), "image/jpeg")
	}
	return b, err
}

// fetch asks the source; a source that cannot tell counts as shrunk.
func (c Cached) fetch(ctx context.Context, orgID, env, customerID, photoID string) ([]byte, bool, error) {
	if s, ok := c.Source.(Shrinker); ok {
		return s.ThumbnailShrunk(ctx, orgID, env, customerID, photoID)
	}
	b, err := c.Source.Thumbnail(ctx, orgID, env, customerID, photoID)
	return b, true, err
}

func (c Cached) get(ctx context.Context, key string) ([]byte, bool) {
	r, err := c.Store.Get(ctx, key)
	if err != nil {
		return nil, false
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxBytes))
	return b, err == nil && len(b) > 0
}
