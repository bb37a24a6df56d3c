package signing

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func headers(id string, ts int64, sig string) http.Header {
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	h.Set("webhook-signature", sig)
	return h
}

// The reference library (an independent implementation) accepts our
// signatures, under either secret during a rotation, and refuses a
// tampered body, a wrong id and an old timestamp.
func TestSignaturesVerifyWithTheReferenceLibrary(t *testing.T) {
	old, cur := NewSecret(), NewSecret()
	if !strings.HasPrefix(cur, Prefix) || old == cur {
		t.Fatalf("secrets %q %q", old, cur)
	}
	body := []byte(`{"id":"e1","type":"webhook.test"}`)
	now := time.Now().Unix()
	sig, err := Signature("msg_1", now, body, cur, old)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Split(sig, " ")); n != 2 {
		t.Fatalf("%d signatures: %s", n, sig)
	}
	for _, s := range []string{cur, old} {
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(body, headers("msg_1", now, sig)); err != nil {
			t.Fatalf("verify: %v", err)
		}
		if wh.Verify([]byte(`{"id":"e1","type":"webhook.tesT"}`), headers("msg_1", now, sig)) == nil {
			t.Fatal("tampered body verified")
		}
		if wh.Verify(body, headers("msg_2", now, sig)) == nil {
			t.Fatal("other id verified")
		}
		stale := now - 6*60
		staleSig, _ := Signature("msg_1", stale, body, s)
		if wh.Verify(body, headers("msg_1", stale, staleSig)) == nil {
			t.Fatal("six-minute-old timestamp verified")
		}
	}
	other, _ := standardwebhooks.NewWebhook(NewSecret())
	if other.Verify(body, headers("msg_1", now, sig)) == nil {
		t.Fatal("verified under an unrelated secret")
	}
}

func TestMalformedSecretsAreRefused(t *testing.T) {
	for _, s := range []string{"", "whsec_", "whsec_!!", "abc", Prefix + "c2hvcnQ="} {
		if _, err := Signature("m", 1, nil, s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
