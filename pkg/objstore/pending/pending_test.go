package pending_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/minio/minio-go/v7"

	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/pkg/objstore/pending"
	"github.com/kycfield/kyc/pkg/pgtest"
)

// An object whose row committed stays; one whose write was announced and
// never recorded (a crash between the Put and the commit) is removed once
// its grace has passed, and not before; a store that is down keeps the
// announcement for the next round.
func TestSweeperRemovesOnlyUnrecordedObjects(t *testing.T) {
	pool, _ := pgtest.NewDB(t, pending.Migration())
	mc, bucket := miniotest.NewBucket(t)
	b := objstore.Bucket{Client: mc, Name: bucket}
	ctx := context.Background()
	put := func(key string) {
		t.Helper()
		if err := pending.Begin(ctx, pool, key); err != nil {
			t.Fatal(err)
		}
		if _, err := b.PutSized(ctx, key, bytes.NewReader([]byte("photo")), 5, "image/jpeg"); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(key string) bool {
		_, err := mc.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
		return err == nil
	}
	put("org/test/cus/recorded.jpg")
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return pending.Done(ctx, tx, "org/test/cus/recorded.jpg") }); err != nil {
		t.Fatal(err)
	}
	put("org/test/cus/orphan.jpg")
	_ = pending.Begin(ctx, pool, "org/test/cus/never-written.jpg") // died before the Put

	s := pending.Sweeper{DB: pool, Remove: b.Delete, Grace: time.Hour, Log: logging.Discard()}
	if n, err := s.Sweep(ctx); err != nil || n != 0 || !exists("org/test/cus/orphan.jpg") {
		t.Fatalf("within the grace: removed %d, %v", n, err)
	}
	down := s
	down.Grace = 0
	down.Remove = func(context.Context, string) error { return errors.New("connection refused") }
	if _, err := down.Sweep(ctx); err == nil || !exists("org/test/cus/orphan.jpg") {
		t.Fatalf("store down: %v", err)
	}
	s.Grace = 0
	if n, err := s.Sweep(ctx); err != nil || n != 2 {
		t.Fatalf("after the grace: removed %d, %v", n, err)
	}
	if exists("org/test/cus/orphan.jpg") || !exists("org/test/cus/recorded.jpg") {
		t.Fatalf("orphan kept %v, recorded kept %v", exists("org/test/cus/orphan.jpg"), exists("org/test/cus/recorded.jpg"))
	}
	if n, _ := s.Sweep(ctx); n != 0 {
		t.Fatalf("a second sweep removed %d", n)
	}
}
