// Package redistest connects a test to the real Redis server with a key
// prefix of its own, deleting the test's keys at cleanup.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// URL is the test Redis URL.
func URL() string {
	if u := os.Getenv("KYC_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// New returns a client and a unique key prefix ending in ':'; the prefix's
// keys are deleted when the test ends.
func New(t testing.TB) (*redis.Client, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, prefix, cleanup, err := Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	return c, prefix
}

// Open is New for callers without a testing.TB (the e2e harness, which
// lives as long as a whole package's tests): cleanup deletes the prefix's
// keys and closes the client.
func Open(ctx context.Context) (c *redis.Client, prefix string, cleanup func(), err error) {
	opt, err := redis.ParseURL(URL())
	if err != nil {
		return nil, "", nil, fmt.Errorf("redistest: %w", err)
	}
	c = redis.NewClient(opt)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, "", nil, fmt.Errorf("redistest: Redis is not reachable at %s (run `make test`, which starts it): %w", URL(), err)
	}
	var b [5]byte
	_, _ = rand.Read(b[:])
	prefix = "t" + hex.EncodeToString(b[:]) + ":"
	cleanup = func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
		c.Close()
	}
	return c, prefix, cleanup, nil
}
