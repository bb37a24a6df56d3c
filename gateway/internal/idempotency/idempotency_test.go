package idempotency

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/redistest"
)

func TestLifecycle(t *testing.T) {
	rdb, prefix := redistest.New(t)
	s := New(rdb, prefix, time.Hour, time.Minute)
	ctx := context.Background()
	fp := Fingerprint("POST", "/api/v1/customers", []byte(`{"a":1}`))
	if o, _, err := s.Begin(ctx, "org:test", "k", fp); err != nil || o != Proceed {
		t.Fatalf("first: %v %v", o, err)
	}
	if o, _, _ := s.Begin(ctx, "org:test", "k", fp); o != InProgress {
		t.Fatalf("while running: %v", o)
	}
	if o, _, _ := s.Begin(ctx, "org:test", "k", Fingerprint("POST", "/api/v1/customers", []byte(`{"a":2}`))); o != Reused {
		t.Fatalf("other body: %v", o)
	}
	if err := s.Complete(ctx, "org:test", "k", Stored{Fingerprint: fp, Status: 201, Body: []byte("done")}); err != nil {
		t.Fatal(err)
	}
	o, st, _ := s.Begin(ctx, "org:test", "k", fp)
	if o != Replay || st.Status != 201 || string(st.Body) != "done" {
		t.Fatalf("replay: %v %+v", o, st)
	}
	if ttl := rdb.TTL(ctx, prefix+"idem:org:test:k").Val(); ttl < 59*time.Minute {
		t.Fatalf("kept for %s", ttl)
	}
	if o, _, _ := s.Begin(ctx, "org:live", "k", fp); o != Proceed {
		t.Fatalf("other scope: %v", o)
	}
	_ = s.Abandon(ctx, "org:live", "k")
	if o, _, _ := s.Begin(ctx, "org:live", "k", fp); o != Proceed {
		t.Fatalf("after abandon: %v", o)
	}
	if Fingerprint("POST", "/a", nil) == Fingerprint("POST", "/b", nil) {
		t.Fatal("path not in fingerprint")
	}
}

func TestValidKey(t *testing.T) {
	for k, ok := range map[string]bool{"order-1": true, "f5c0d7c2-7d6a-4c73-9f0a-1b2c3d4e5f60": true, "": false, "has space": false,
		strings.Repeat("k", 255): true, strings.Repeat("k", 256): false, "naïve": false} {
		if ValidKey(k) != ok {
			t.Errorf("ValidKey(%q) != %v", k, ok)
		}
	}
}
