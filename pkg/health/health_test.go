package health_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/health"
	"github.com/kycfield/kyc/pkg/kafkabus"
	"github.com/kycfield/kyc/pkg/kafkatest"
	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/pkg/pgtest"
)

// deadAddr is a loopback address where nothing listens any more.
func deadAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// silentAddr accepts connections and never answers (a hung dependency).
func silentAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	return l.Addr().String()
}

type deps struct{ postgres, kafka, minio string }

func (d deps) register(t *testing.T, h *health.Health) {
	pool, err := pgxpool.New(context.Background(), d.postgres)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	mc, err := minio.New(d.minio, &minio.Options{Creds: credentials.NewStaticV4(miniotest.Store().AccessKey, miniotest.Store().SecretKey, "")})
	if err != nil {
		t.Fatal(err)
	}
	// The same checks platform.boot and the services with a bucket add.
	h.Add("postgres", func(ctx context.Context) error { return pool.Ping(ctx) })
	h.Add("kafka", func(ctx context.Context) error { return kafkabus.Ping(ctx, []string{d.kafka}) })
	h.Add("minio", objstore.Check(mc, "readyz-probe"))
}

func readyz(t *testing.T, h *health.Health) (int, envelope.Response) {
	mux := http.NewServeMux()
	h.Register(mux)
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", "/readyz", nil))
	var body envelope.Response
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("readyz body %q: %v", w.Body.String(), err)
	}
	return w.Code, body
}

// /readyz is 200 while the database, Kafka and MinIO answer, and 503
// SERVICE_UNAVAILABLE naming each one that is down or hung, without the
// addresses or driver messages (those go to the log).
func TestReadyzNamesTheDependencyThatIsDown(t *testing.T) {
	t.Parallel()
	up := deps{postgres: pgtest.CreateDB(t), kafka: kafkatest.Brokers()[0], minio: miniotest.Store().Endpoint}
	dead := deadAddr(t)
	silent := silentAddr(t)
	pgAt := func(addr string) string {
		return "postgres://postgres:postgres@" + addr + "/postgres?sslmode=disable&connect_timeout=10"
	}
	cases := []struct {
		name string
		deps deps
		want map[string]string // failing dependency -> message
	}{
		{"all up", up, nil},
		{"database refused", deps{pgAt(dead), up.kafka, up.minio}, map[string]string{"postgres": "unreachable"}},
		{"database hung", deps{pgAt(silent), up.kafka, up.minio}, map[string]string{"postgres": "did not answer within 2s"}},
		{"kafka refused", deps{up.postgres, dead, up.minio}, map[string]string{"kafka": "unreachable"}},
		{"minio refused", deps{up.postgres, up.kafka, dead}, map[string]string{"minio": "unreachable"}},
		{"all down", deps{pgAt(dead), dead, dead}, map[string]string{"postgres": "unreachable", "kafka": "unreachable", "minio": "unreachable"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := health.New()
			c.deps.register(t, h)
			code, body := readyz(t, h)
			if c.want == nil {
				if code != http.StatusOK || !body.Status {
					t.Fatalf("readyz: %d %+v", code, body.Error)
				}
				return
			}
			if code != http.StatusServiceUnavailable || body.Error == nil || body.Error.Code != "SERVICE_UNAVAILABLE" {
				t.Fatalf("readyz: %d %+v", code, body.Error)
			}
			got := map[string]string{}
			for _, d := range body.Error.Details {
				got[d.Field] = d.Message
			}
			if len(got) != len(c.want) {
				t.Fatalf("details %v, want %v", got, c.want)
			}
			for dep, msg := range c.want {
				if got[dep] != msg {
					t.Errorf("%s: %q, want %q (all: %v)", dep, got[dep], msg, got)
				}
			}
			if strings.Contains(body.Error.Message, "127.0.0.1") {
				t.Errorf("the answer leaks an address: %s", body.Error.Message)
			}
		})
	}
}

// Once draining for shutdown, /readyz fails even with every dependency up.
func TestReadyzFailsWhileDraining(t *testing.T) {
	t.Parallel()
	h := health.New()
	h.Add("postgres", func(context.Context) error { return nil })
	h.Drain()
	code, body := readyz(t, h)
	if code != http.StatusServiceUnavailable || body.Error == nil || len(body.Error.Details) != 1 || body.Error.Details[0].Field != "process" {
		t.Fatalf("draining readyz: %d %+v", code, body.Error)
	}
}
