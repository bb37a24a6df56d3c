package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/pkg/objstore/pending"
	"github.com/kycfield/kyc/services/document/internal/events"
)

// unluckyBucket stores files, runs between before the record is written
// (the customer is deleted in that instant), and cannot remove anything
// (the store blinked), the worst case for a stored file whose record never
// commits.
type unluckyBucket struct {
	objstore.Bucket
	between func()
	stored  chan string
}

func (b *unluckyBucket) PutSized(ctx context.Context, key string, r io.Reader, size int64, contentType string) (int64, error) {
	n, err := b.Bucket.PutSized(ctx, key, r, size, contentType)
	b.stored <- key
	b.between()
	return n, err
}

func (b *unluckyBucket) Remove(context.Context, string) {}

// A file stored for a record that then fails, whose removal fails too,
// is not kept for ever: the sweeper removes it, while a recorded
// document's file stays.
func TestAFileWhoseRecordNeverCommitsIsSwept(t *testing.T) {
	mc, name := miniotest.NewBucket(t)
	bucket := objstore.Bucket{Client: mc, Name: name}
	ok := setup(t, bucket)
	who := newTenant("live")
	cus := ok.customer(t, who)
	kept := ok.upload(t, who, cus, part{name: "documentType", value: "OTHER"}, part{name: "file", file: "a.png", value: string(pngBytes(t, 8, 8))})
	if kept.status != http.StatusCreated {
		t.Fatalf("upload: %d %s", kept.status, kept.body)
	}

	unlucky := &unluckyBucket{Bucket: bucket, stored: make(chan string, 1)}
	f := serve(t, ok.pool, unlucky)
	unlucky.between = func() { f.event(t, who, events.TypeCustomerDeleted, cus) }
	r := f.upload(t, who, cus, part{name: "documentType", value: "OTHER"}, part{name: "file", file: "b.png", value: string(pngBytes(t, 8, 8))})
	if r.status != http.StatusNotFound {
		t.Fatalf("upload for a customer deleted meanwhile: %d %s", r.status, r.body)
	}
	orphan := <-unlucky.stored
	exists := func(key string) bool {
		_, err := mc.StatObject(context.Background(), name, key, minio.StatObjectOptions{})
		return err == nil
	}
	if !exists(orphan) {
		t.Fatal("the orphan was never stored: the test proves nothing")
	}
	s := pending.Sweeper{DB: ok.pool, Remove: bucket.Delete, Grace: 0, Log: logging.Discard()}
	if n, err := s.Sweep(context.Background()); err != nil || n != 1 {
		t.Fatalf("sweep removed %d: %v", n, err)
	}
	var stored struct{ ObjectKey string }
	_ = ok.pool.QueryRow(context.Background(), `SELECT object_key FROM documents`).Scan(&stored.ObjectKey)
	if exists(orphan) || !exists(stored.ObjectKey) {
		t.Fatalf("orphan kept: %v; recorded file kept: %v", exists(orphan), exists(stored.ObjectKey))
	}
}
