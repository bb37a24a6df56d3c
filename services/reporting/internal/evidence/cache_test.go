package evidence_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/services/reporting/internal/evidence"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// counting stands in for the verification service: it counts the photos
// it is asked for, and says the photo "gone" is unavailable.
type counting struct{ calls atomic.Int32 }

func (c *counting) Thumbnail(_ context.Context, orgID, env, customerID, photoID string) ([]byte, error) {
	c.calls.Add(1)
	if photoID == gone {
		return nil, report.ErrPhotoUnavailable
	}
	return []byte(fmt.Sprintf("jpeg of %s/%s/%s/%s", orgID, env, customerID, photoID)), nil
}

// TestCachedThumbnailsAreFetchedOncePerTenant: a photo is fetched once,
// then read from the reporting bucket; another tenant's request for the
// same photo is not served from the first one's cache; unavailable photos
// are not cached.
func TestCachedThumbnailsAreFetchedOncePerTenant(t *testing.T) {
	mc, name := miniotest.NewBucket(t)
	src := &counting{}
	c := evidence.Cached{Source: src, Store: objstore.Bucket{Client: mc, Name: name}}
	ctx := context.Background()
	first, err := c.Thumbnail(ctx, "org_a", "live", customer, photoID)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Thumbnail(ctx, "org_a", "live", customer, photoID)
	if err != nil || !bytes.Equal(first, again) || src.calls.Load() != 1 {
		t.Fatalf("second read: %v, %d fetches", err, src.calls.Load())
	}
	other, _ := c.Thumbnail(ctx, "org_b", "live", customer, photoID)
	if bytes.Equal(other, first) || src.calls.Load() != 2 {
		t.Fatalf("another tenant was served the first one's thumbnail (%d fetches)", src.calls.Load())
	}
	for range 2 {
		if _, err := c.Thumbnail(ctx, "org_a", "live", customer, gone); !errors.Is(err, report.ErrPhotoUnavailable) {
			t.Fatalf("gone: %v", err)
		}
	}
	if src.calls.Load() != 4 {
		t.Fatalf("%d fetches: an unavailable photo was cached", src.calls.Load())
	}
}

// recent is a source that found every photo but "new" among the
// thumbnails it made recently (as Client does for the sandbox's mock
// photos).
type recent struct{ counting }

func (r *recent) ThumbnailShrunk(ctx context.Context, orgID, env, customerID, photoID string) ([]byte, bool, error) {
	b, err := r.Thumbnail(ctx, orgID, env, customerID, photoID)
	return b, photoID == fresh, err
}

// TestOnlyShrunkThumbnailsAreStored: a thumbnail the source reused is not
// written to the bucket (the next report asks the source again, which
// reuses it again); one it had to shrink is, and is read back from there.
func TestOnlyShrunkThumbnailsAreStored(t *testing.T) {
	mc, name := miniotest.NewBucket(t)
	src := &recent{}
	c := evidence.Cached{Source: src, Store: objstore.Bucket{Client: mc, Name: name}}
	ctx := context.Background()
	for range 2 {
		if _, err := c.Thumbnail(ctx, "org_a", "live", customer, photoID); err != nil {
			t.Fatal(err)
		}
	}
	if n := src.calls.Load(); n != 2 {
		t.Fatalf("a reused thumbnail: %d fetches, want 2 (not stored)", n)
	}
	for range 2 {
		if _, err := c.Thumbnail(ctx, "org_a", "live", customer, fresh); err != nil {
			t.Fatal(err)
		}
	}
	if n := src.calls.Load(); n != 3 {
		t.Fatalf("a shrunk thumbnail: %d fetches in all, want 3 (stored once, then read)", n)
	}
}

// storeCalls is a bucket that only counts what it is asked.
type storeCalls struct{ gets, puts atomic.Int32 }

func (s *storeCalls) PutSized(_ context.Context, _ string, _ io.Reader, size int64, _ string) (int64, error) {
	s.puts.Add(1)
	return size, nil
}

func (s *storeCalls) Get(context.Context, string) (io.ReadCloser, error) {
	s.gets.Add(1)
	return nil, errors.New("not stored")
}

// TestSandboxThumbnailsSkipTheBucket: a sandbox report's photos (always
// the mock photos, kept by the source) are asked of the source every
// time and never looked for in, or written to, the bucket; a live
// report's are.
func TestSandboxThumbnailsSkipTheBucket(t *testing.T) {
	ctx := context.Background()
	src, store := &recent{}, &storeCalls{}
	c := evidence.Cached{Source: src, Store: store}
	for _, id := range []string{photoID, fresh, fresh} {
		b, err := c.Thumbnail(ctx, "org_a", "test", customer, id)
		if err != nil || !bytes.Contains(b, []byte(id)) {
			t.Fatalf("sandbox thumbnail of %s: %q, %v", id, b, err)
		}
	}
	if g, p, n := store.gets.Load(), store.puts.Load(), src.calls.Load(); g != 0 || p != 0 || n != 3 {
		t.Fatalf("sandbox: %d bucket reads, %d writes, %d fetches; want 0, 0, 3", g, p, n)
	}
	if _, err := c.Thumbnail(ctx, "org_a", "live", customer, fresh); err != nil {
		t.Fatal(err)
	}
	if g, p := store.gets.Load(), store.puts.Load(); g != 1 || p != 1 {
		t.Fatalf("live: %d bucket reads, %d writes; want 1 and 1", g, p)
	}
}
