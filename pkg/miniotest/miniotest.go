// Package miniotest gives a test its own bucket on the real MinIO server,
// emptied and removed at cleanup.
package miniotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"github.com/kycfield/kyc/pkg/objstore"
	"os"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Settings locate the test MinIO server.
type Settings struct {
	Endpoint, AccessKey, SecretKey string
}

// Server returns the test server's settings.
func Server() Settings {
	s := Settings{Endpoint: "127.0.0.1:9000", AccessKey: "kycminio", SecretKey: "kycminio-secret"}
	if v := os.Getenv("KYC_TEST_MINIO_ENDPOINT"); v != "" {
		s.Endpoint = v
	}
	if v := os.Getenv("KYC_TEST_MINIO_ACCESS_KEY"); v != "" {
		s.AccessKey = v
	}
	if v := os.Getenv("KYC_TEST_MINIO_SECRET_KEY"); v != "" {
		s.SecretKey = v
	}
	return s
}

// NewBucket creates a uniquely named bucket and returns a client and its name.
func NewBucket(t testing.TB) (*minio.Client, string) {
	t.Helper()
	s := Server()
	c, err := minio.New(s.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(s.AccessKey, s.SecretKey, "")})
	if err != nil {
		t.Fatalf("miniotest: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var b [5]byte
	_, _ = rand.Read(b[:])
	name := "t-" + hex.EncodeToString(b[:])
	if err := c.MakeBucket(ctx, name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("miniotest: MinIO is not usable at %s (run `make test`, which starts it): %v", s.Endpoint, err)
	}
	t.Cleanup(func() { RemoveBucket(c, name) })
	return c, name
}

// Store is the test server as the services' object-store settings.
func Store() objstore.Config {
	s := Server()
	return objstore.Config{Endpoint: s.Endpoint, AccessKey: s.AccessKey, SecretKey: s.SecretKey, Region: "us-east-1"}
}

// RemoveBucket empties and deletes a bucket (best effort, for cleanups).
func RemoveBucket(c *minio.Client, name string) {
	ctx := context.Background()
	for obj := range c.ListObjects(ctx, name, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err == nil {
			_ = c.RemoveObject(ctx, name, obj.Key, minio.RemoveObjectOptions{})
		}
	}
	_ = c.RemoveBucket(ctx, name)
}
