package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/objstore"
)

// TestPutStreamsWithinItsLimit: an upload of unknown length costs memory
// near its limit, not minio-go's default part (about 537 MiB), and a body
// over the limit is refused and not kept.
func TestPutStreamsWithinItsLimit(t *testing.T) {
	mc, bucket := miniotest.NewBucket(t)
	b := objstore.Bucket{Client: mc, Name: bucket}
	ctx := context.Background()
	body := bytes.Repeat([]byte("x"), 3<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, err := b.Put(ctx, "a", bytes.NewReader(body), "application/octet-stream", 10<<20)
	runtime.ReadMemStats(&after)
	if err != nil || n != int64(len(body)) {
		t.Fatalf("put: %d %v", n, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Fatalf("a 3 MiB upload allocated %d MiB", alloc>>20)
	}
	if _, err := b.Put(ctx, "big", bytes.NewReader(body), "application/octet-stream", 1<<20); !errors.Is(err, objstore.ErrTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := mc.StatObject(ctx, bucket, "big", minio.StatObjectOptions{}); err == nil {
		t.Fatal("a refused upload was kept")
	}
}
