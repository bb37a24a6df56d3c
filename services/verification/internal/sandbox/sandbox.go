// Package sandbox runs the sandbox's simulated field work: the mock
// photos it shows as evidence, stored once in the object store, and the
// worker that advances sandbox jobs when they fall due.
package sandbox

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/minio/minio-go/v7"

	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/services/verification/internal/postgres"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// photoColours give each mock photo a look of its own (sky over a
// building, a street, a landmark).
var photoColours = map[string][2]color.RGBA{
	"building_front": {{135, 190, 235, 255}, {214, 196, 160, 255}},
	"street_view":    {{150, 200, 240, 255}, {90, 90, 95, 255}},
	"landmark":       {{120, 180, 230, 255}, {60, 130, 70, 255}},
}

// Mock is the sandbox's mock photos: stored once in the bucket (so any
// reader of the bucket finds them), and kept in memory, where the photo
// endpoint serves them from (Photos).
type Mock struct {
	// Sizes are the photos' sizes by tag, for the photo records.
	Sizes map[string]int64
	bytes map[string][]byte // by object key
}

// StorePhotos makes sure the mock photos are in bucket and returns them.
// The JPEGs are generated, so the same bytes every time.
func StorePhotos(ctx context.Context, mc *minio.Client, bucket string) (Mock, error) {
	m := Mock{Sizes: map[string]int64{}, bytes: map[string][]byte{}}
	for tag, c := range photoColours {
		b := mockJPEG(c[0], c[1])
		key := verification.SandboxPhotoKey(tag)
		m.Sizes[tag], m.bytes[key] = int64(len(b)), b
		if info, err := mc.StatObject(ctx, bucket, key, minio.StatObjectOptions{}); err == nil && info.Size == int64(len(b)) {
			continue
		}
		if _, err := mc.PutObject(ctx, bucket, key, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{ContentType: "image/jpeg"}); err != nil {
			return Mock{}, err
		}
	}
	return m, nil
}

// Photos is the photo bucket with the mock photos read from memory:
// every sandbox customer's report fetches its three mock photos, and
// reading the same bytes from MinIO each time was a third of MinIO's
// work per sandbox customer (BENCHMARKS.md section 18).
type Photos struct {
	objstore.Bucket
	Mock Mock
}

// Get returns the object at key, from memory for a mock photo.
func (p Photos) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if b, ok := p.Mock.bytes[key]; ok {
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	return p.Bucket.Get(ctx, key)
}

// mockJPEG is a 640x480 picture: sky above, ground below, a block in the
// middle.
func mockJPEG(sky, ground color.RGBA) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 640, 480))
	for y := 0; y < 480; y++ {
		for x := 0; x < 640; x++ {
			c := sky
			switch {
			case y >= 300:
				c = ground
			case x >= 220 && x < 420 && y >= 150:
				c = color.RGBA{ground.R / 2, ground.G / 2, ground.B / 2, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80})
	return buf.Bytes()
}

// Worker advances due sandbox jobs: at once when a transaction announces
// work due now, otherwise when the next job falls due (looking at most
// every Poll).
type Worker struct {
	Service *verification.Service
	Pool    *pgxpool.Pool
	Poll    time.Duration
	Log     *slog.Logger
}

// Run works until ctx ends; failures are logged and retried.
func (w *Worker) Run(ctx context.Context) error {
	return pgdb.Worker{Pool: w.Pool, Channel: postgres.SandboxChannel, Poll: w.Poll, Log: w.Log, Name: "sandbox worker",
		Next: func(ctx context.Context) (time.Time, error) { return postgres.NextSandboxDue(ctx, w.Pool) },
		Work: func(ctx context.Context) (bool, error) {
			n, err := w.Service.RunSandbox(ctx, 50)
			return n > 0, err
		}}.Run(ctx)
}
