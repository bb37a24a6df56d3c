// Package objstore connects to the S3-compatible object store (MinIO
// locally, MinIO or S3 in production) and makes sure a service's bucket
// exists.
package objstore

import (
	"context"
	"fmt"

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
