// Package objstore connects to the S3-compatible object store (MinIO
// locally, MinIO or S3 in production) and makes sure a service's bucket
// exists.
package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Config locates the store; embed it in a service's configuration.
type Config struct {
	Endpoint  string `env:"MINIO_ENDPOINT" envDefault:"127.0.0.1:9000"`
	AccessKey string `env:"MINIO_ACCESS_KEY" envDefault:"kycminio"`
	SecretKey string `env:"MINIO_SECRET_KEY" envDefault:"kycminio-secret" secret:"true"`
	UseSSL    bool   `env:"MINIO_USE_SSL" envDefault:"false"`
	Region    string `env:"MINIO_REGION" envDefault:"us-east-1"`
}

// Open connects and creates bucket when missing.
func Open(ctx context.Context, c Config, bucket string) (*minio.Client, error) {
	mc, err := minio.New(c.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(c.AccessKey, c.SecretKey, ""), Secure: c.UseSSL, Region: c.Region})
	if err != nil {
		return nil, fmt.Errorf("objstore: %w", err)
	}
	ok, err := mc.BucketExists(ctx, bucket)
	if err != nil {
		return nil, fmt.Errorf("objstore: bucket %s: %w", bucket, err)
	}
	if !ok {
		if err := mc.MakeBucket(ctx, bucket, minio.MakeBucketOptions{Region: c.Region}); err != nil {
			if exists, err2 := mc.BucketExists(ctx, bucket); err2 != nil || !exists {
				return nil, fmt.Errorf("objstore: create bucket %s: %w", bucket, err)
			}
		}
	}
	return mc, nil
}

// Check returns a readiness check for bucket.
func Check(mc *minio.Client, bucket string) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := mc.BucketExists(ctx, bucket)
		return err
	}
}

// Bucket is one bucket of the store, for services that keep files.
type Bucket struct {
	Client *minio.Client
	Name   string
}

// Put streams r into key, reading at most limit bytes: a larger body is
// refused with ErrTooLarge and nothing is kept. minio-go buffers a body of
// unknown length one part at a time, and its default part for that case
// is about 537 MiB (5 TiB / 10,000 parts): the part is set to the limit
// instead (at least S3's 5 MiB minimum), so memory per upload stays near
// limit.
func (b Bucket) Put(ctx context.Context, key string, r io.Reader, contentType string, limit int64) (int64, error) {
	lr := &limited{r: r, left: limit + 1}
	part := uint64(max(limit+1, 5<<20))
	info, err := b.Client.PutObject(ctx, b.Name, key, lr, -1, minio.PutObjectOptions{ContentType: contentType, PartSize: part})
	if err == nil && lr.left <= 0 {
		_ = b.Client.RemoveObject(context.WithoutCancel(ctx), b.Name, key, minio.RemoveObjectOptions{})
		return 0, ErrTooLarge
	}
	return info.Size, err
}

// PutSized stores exactly size bytes of r (a file or a buffer whose size
// is known) under key and returns the size stored. With the length known,
// minio-go sends the object as it reads it (a single PUT up to 16 MiB)
// instead of allocating a multipart buffer: for a body of unknown length
// (Put) that buffer is 5 TiB / 10,000 parts, about 537 MiB per upload,
// unless PartSize is set.
func (b Bucket) PutSized(ctx context.Context, key string, r io.Reader, size int64, contentType string) (int64, error) {
	info, err := b.Client.PutObject(ctx, b.Name, key, r, size, minio.PutObjectOptions{ContentType: contentType})
	return info.Size, err
}

// ErrTooLarge is returned by Put for a body over its limit.
var ErrTooLarge = errors.New("objstore: object over the size limit")

// Get opens key for reading.
func (b Bucket) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	return b.Client.GetObject(ctx, b.Name, key, minio.GetObjectOptions{})
}

// limited reads at most left bytes and notes when the source had more.
type limited struct {
	r    io.Reader
	left int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// Remove deletes key (best effort: a leftover costs storage, not
// correctness, and pending.Sweeper finds it later).
func (b Bucket) Remove(ctx context.Context, key string) {
	_ = b.Delete(ctx, key)
}

// Delete deletes key; a key that does not exist is not an error.
func (b Bucket) Delete(ctx context.Context, key string) error {
	return b.Client.RemoveObject(context.WithoutCancel(ctx), b.Name, key, minio.RemoveObjectOptions{})
}
