package sandbox

import (
	"bytes"
	"context"
	"image/jpeg"
	"io"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// The mock photos are stored in the bucket once, and the photo endpoint's
// store serves them from memory: removed from MinIO afterwards, they are
// still served, the same bytes, while any other key is read from MinIO.
func TestMockPhotosAreStoredAndServedFromMemory(t *testing.T) {
	ctx := context.Background()
	mc, bucket := miniotest.NewBucket(t)
	mock, err := StorePhotos(ctx, mc, bucket)
	if err != nil {
		t.Fatal(err)
	}
	if len(mock.Sizes) != len(photoColours) {
		t.Fatalf("sizes for %d tags, want %d", len(mock.Sizes), len(photoColours))
	}
	photos := Photos{Bucket: objstore.Bucket{Client: mc, Name: bucket}, Mock: mock}
	for tag, size := range mock.Sizes {
		key := verification.SandboxPhotoKey(tag)
		stored := read(t, photos.Bucket, key)
		if int64(len(stored)) != size {
			t.Fatalf("%s: stored %d bytes, sized %d", tag, len(stored), size)
		}
		if err := mc.RemoveObject(ctx, bucket, key, minio.RemoveObjectOptions{}); err != nil {
			t.Fatal(err)
		}
		served := read(t, photos, key)
		if !bytes.Equal(served, stored) {
			t.Fatalf("%s: served bytes differ from the stored ones", tag)
		}
		if _, err := jpeg.DecodeConfig(bytes.NewReader(served)); err != nil {
			t.Fatalf("%s: not a JPEG: %v", tag, err)
		}
	}
	if _, err := read1(photos, "agents/agt_x/adr_x/pho_x.jpg"); err == nil {
		t.Fatal("a key that is in neither memory nor the bucket was served")
	}
	// Stored again on the next start, as before.
	if _, err := StorePhotos(ctx, mc, bucket); err != nil {
		t.Fatal(err)
	}
	if len(read(t, photos.Bucket, verification.SandboxPhotoKey("landmark"))) == 0 {
		t.Fatal("the next start did not store the mock photo again")
	}
}

type getter interface {
	Get(ctx context.Context, key string) (io.ReadCloser, error)
}

func read(t *testing.T, g getter, key string) []byte {
	t.Helper()
	b, err := read1(g, key)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return b
}

func read1(g getter, key string) ([]byte, error) {
	r, err := g.Get(context.Background(), key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
