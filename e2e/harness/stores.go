package harness

import (
	"context"
	"maps"
	"os"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/redis/go-redis/v9"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/pkg/redistest"
	"github.com/kycfield/kyc/stack"
)

// WebhookSchedule is the webhook retry schedule in end-to-end runs: eight
// attempts, as in production, over about 6 seconds.
const WebhookSchedule = "0s,200ms,400ms,600ms,800ms,1s,1.2s,1.5s"

// AdminToken is the auth-billing admin token used by the harness.
const AdminToken = "harness-admin-token"

// Stores are one run's own share of the real servers: a Kafka topic
// prefix, a Redis key prefix, and per service a fresh database and bucket.
type Stores struct {
	Bus          kafkabus.Config
	Redis        *redis.Client
	RedisPrefix  string
	DatabaseURLs map[string]string // service name -> its database
	buckets      map[string]string // service name -> its bucket
	cleanup      []func()
}

// NewStores creates fresh stores for every service of the registry.
// Close removes them.
func NewStores(ctx context.Context) (s *Stores, err error) {
	s = &Stores{DatabaseURLs: map[string]string{}, buckets: map[string]string{}}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if s.Bus, err = kafkatest.NewConfig(ctx); err != nil {
		return nil, err
	}
	s.cleanup = append(s.cleanup, func() { kafkatest.DeleteTopics(s.Bus) })
	var dropRedis func()
	if s.Redis, s.RedisPrefix, dropRedis, err = redistest.Open(ctx); err != nil {
		return nil, err
	}
	s.cleanup = append(s.cleanup, dropRedis)
	store := miniotest.Store()
	mc, err := minio.New(store.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(store.AccessKey, store.SecretKey, "")})
	if err != nil {
		return nil, err
	}
	for _, svc := range stack.Services {
		if svc.Database != "" {
			u, drop, err := pgtest.Create(ctx, svc.Name)
			if err != nil {
				return nil, err
			}
			s.DatabaseURLs[svc.Name] = u
			s.cleanup = append(s.cleanup, drop)
		}
		if svc.Bucket != "" {
			// Buckets are created by the services; the run's topic prefix
			// makes the name unique.
			name := "t-" + strings6(s.Bus.TopicPrefix) + "-" + svc.Bucket
			s.buckets[svc.Name] = name
			s.cleanup = append(s.cleanup, func() { miniotest.RemoveBucket(mc, name) })
		}
	}
	return s, nil
}

// Shared is the environment every component of the run reads: the
// process environment with the run's topics, Redis and MinIO, quiet logs,
// a quick shutdown, and loopback ports chosen by the kernel.
func (s *Stores) Shared() map[string]string {
	store := miniotest.Store()
	env := config.Environ()
	maps.Copy(env, map[string]string{
		"KAFKA_BROKERS": strings.Join(s.Bus.Brokers, ","), "KAFKA_TOPIC_PREFIX": s.Bus.TopicPrefix,
		"LOG_LEVEL": "warn", "SHUTDOWN_TIMEOUT": "5s", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"MINIO_ENDPOINT": store.Endpoint, "MINIO_ACCESS_KEY": store.AccessKey, "MINIO_SECRET_KEY": store.SecretKey,
		"REDIS_URL": redistest.URL(),
	})
	return env
}

// Override is what differs by component: its database and bucket, and
// the few settings tests need (a known admin token, fast password
// hashing, the run's Redis prefix, frequent usage reports, an immediate
// sandbox).
func (s *Stores) Override(svc platform.Service) map[string]string {
	o := map[string]string{"HTTP_ADDR": "127.0.0.1:0"}
	if u := s.DatabaseURLs[svc.Name]; u != "" {
		o["DATABASE_URL"] = u
	}
	if b := s.buckets[svc.Name]; b != "" {
		o["MINIO_BUCKET"] = b
	}
	switch svc.Name {
	case "auth-billing":
		maps.Copy(o, map[string]string{"ADMIN_TOKEN": AdminToken, "BCRYPT_COST": "4", "REDIS_KEY_PREFIX": s.RedisPrefix + "ab:"})
	case "verification":
		// The sandbox verifies at once in tests (5 s for make run).
		maps.Copy(o, map[string]string{"SANDBOX_DELAY": "0s", "SANDBOX_POLL": "100ms", "ADMIN_TOKEN": AdminToken})
	case "webhook":
		// Receivers are on loopback; the schedule is shortened (the real
		// one runs for 32 hours) so retries and exhaustion happen in a test.
		maps.Copy(o, map[string]string{"WEBHOOK_ALLOW_PRIVATE": "true", "WEBHOOK_RETRY_SCHEDULE": WebhookSchedule, "WEBHOOK_POLL": "50ms"})
	case stack.Gateway.Name:
		maps.Copy(o, map[string]string{"REDIS_KEY_PREFIX": s.RedisPrefix + "gw:", "ADMIN_ADDR": "127.0.0.1:0", "USAGE_REPORT_INTERVAL": "300ms"})
		// Tests fire hundreds of concurrent requests at one organization
		// to check quotas and limits, not admission: no admission bound
		// unless the run's environment sets one (sandboxbench -burst does;
		// TestShedCreateCreatesNothingAndItsRetryOne sets its own).
		if os.Getenv("API_MAX_IN_FLIGHT") == "" {
			o["API_MAX_IN_FLIGHT"] = "0"
		}
	}
	return o
}

// Close removes the run's databases, topics, Redis keys and buckets.
func (s *Stores) Close() {
	for i := len(s.cleanup) - 1; i >= 0; i-- {
		s.cleanup[i]()
	}
}

func strings6(prefix string) string {
	if len(prefix) > 11 {
		return prefix[1:11]
	}
	return prefix
}
