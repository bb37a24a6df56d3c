package kyc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kycfield/kyc/sdk/go/kycapi"
)

// fake is an API that answers each request with the next of its scripted
// answers, recording what it was sent.
type fake struct {
	*httptest.Server
	mu      sync.Mutex
	answers []answer
	got     []*http.Request
	keys    []string
}

// answer is one scripted answer: a status, its Retry-After, or a dropped
// connection (drop).
type answer struct {
	status     int
	retryAfter string
	drop       bool
	hang       bool // answer nothing until the client gives up
	body       string
}

func newFake(t *testing.T, answers ...answer) *fake {
	f := &fake{answers: answers}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.got = append(f.got, r)
		f.keys = append(f.keys, r.Header.Get("Idempotency-Key"))
		a := answer{status: http.StatusOK}
		if len(f.answers) > 0 {
			a, f.answers = f.answers[0], f.answers[1:]
		}
		f.mu.Unlock()
		if a.drop {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		if a.hang {
			<-r.Context().Done()
			return
		}
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		body := a.body
		if body == "-" {
			return
		}
		if body == "" && a.status >= 400 {
			body = fmt.Sprintf(`{"status":false,"error":{"code":"E%d","message":"m"},"meta":{"requestId":"req_1","timestamp":"2026-11-23T10:00:00.123Z"}}`, a.status)
		}
		if body == "" {
			body = `{"status":true,"message":"ok","data":{"id":"cus_1","status":"PENDING","updatedAt":"2026-11-23T10:00:00.123Z"},"meta":{"requestId":"req_2","timestamp":"2026-11-23T10:00:00.123Z"}}`
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(f.Close)
	return f
}

// client is a Client of f whose waits are recorded instead of slept.
func client(t *testing.T, f *fake) (*Client, *[]time.Duration) {
	t.Helper()
	c, err := New(Config{APIKey: "mk_test_x", BaseURL: f.URL, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	c.retrier.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return c, &waits
}

func TestRetries(t *testing.T) {
	ok := answer{status: 201}
	for _, c := range []struct {
		name     string
		method   string
		answers  []answer
		attempts int
		code     string // the *Error's, "" for success
		waits    []time.Duration
	}{
		{"POST: 5xx then success", "POST", []answer{{status: 503}, {status: 500}, ok}, 3, "", nil},
		{"POST: a dropped connection", "POST", []answer{{drop: true}, ok}, 2, "", nil},
		{"POST: 5xx past the retries", "POST", []answer{{status: 502}, {status: 502}, {status: 502}, {status: 502}}, 4, "E502", nil},
		{"POST: 501 is final", "POST", []answer{{status: 501}, ok}, 1, "E501", nil},
		{"POST: 4xx is final", "POST", []answer{{status: 400}, ok}, 1, "E400", nil},
		{"POST: 409 without Retry-After is final", "POST", []answer{{status: 409}, ok}, 1, "E409", nil},
		{"POST: 409 REQUEST_IN_PROGRESS waits Retry-After", "POST", []answer{{status: 409, retryAfter: "1"}, ok}, 2, "", []time.Duration{time.Second}},
		{"POST: 429 waits Retry-After", "POST", []answer{{status: 429, retryAfter: "2"}, ok}, 2, "", []time.Duration{2 * time.Second}},
		{"POST: 429 until midnight is returned", "POST", []answer{{status: 429, retryAfter: "36000"}, ok}, 1, "E429", nil},
		{"GET: a dropped connection", "GET", []answer{{drop: true}, {status: 200}}, 2, "", nil},
		{"GET: an attempt past the timeout", "GET", []answer{{hang: true}, {status: 200}}, 2, "", nil},
		{"PATCH is never retried", "PATCH", []answer{{status: 503}, ok}, 1, "E503", nil},
		{"PUT: 5xx then success", "PUT", []answer{{status: 503}, {status: 200}}, 2, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, c.answers...)
			cl, waits := client(t, f)
			var err error
			switch c.method {
			case "POST":
				_, err = cl.CreateCustomer(context.Background(), kycapi.CustomerCreate{FirstName: "Ngozi"})
			case "GET":
				_, err = Check(cl.API.GetCustomerWithResponse(context.Background(), "cus_1", nil))
			case "PATCH":
				_, err = Check(cl.API.UpdateWebhookWithResponse(context.Background(), "whe_1", nil, kycapi.WebhookEndpointUpdate{}))
			case "PUT":
				_, err = Check(cl.API.UpdateCustomerWithResponse(context.Background(), "cus_1", nil, kycapi.CustomerUpdate{}))
			}
			if got := ErrorCode(err); got != c.code || (c.code == "" && err != nil) {
				t.Fatalf("error %v, want code %q", err, c.code)
			}
			if len(f.got) != c.attempts {
				t.Fatalf("%d attempts, want %d", len(f.got), c.attempts)
			}
			// One key per logical POST, the same on every attempt.
			if c.method == "POST" && (f.keys[0] == "" || slices.ContainsFunc(f.keys, func(k string) bool { return k != f.keys[0] })) {
				t.Fatalf("Idempotency-Key per attempt: %q", f.keys)
			}
			if c.method != "POST" && f.keys[0] != "" {
				t.Fatalf("%s sent Idempotency-Key %q", c.method, f.keys[0])
			}
			if c.waits != nil && !slices.Equal(*waits, c.waits) {
				t.Fatalf("waited %v, want %v", *waits, c.waits)
			}
		})
	}
}

// Two logical calls get two keys; a key the caller set is kept.
func TestIdempotencyKeys(t *testing.T) {
	f := newFake(t, answer{status: 201}, answer{status: 201}, answer{status: 201})
	cl, _ := client(t, f)
	ctx := context.Background()
	for range 2 {
		if _, err := cl.CreateCustomer(ctx, kycapi.CustomerCreate{}); err != nil {
			t.Fatal(err)
		}
	}
	mine := "order-42"
	if _, err := Check(cl.API.CreateCustomerWithResponse(ctx, &kycapi.CreateCustomerParams{IdempotencyKey: &mine}, kycapi.CustomerCreate{})); err != nil {
		t.Fatal(err)
	}
	if f.keys[0] == f.keys[1] || len(f.keys[0]) != 36 || f.keys[2] != mine {
		t.Fatalf("keys %q", f.keys)
	}
	if got := f.got[0].Header.Get("Authorization"); got != "Bearer mk_test_x" {
		t.Fatalf("Authorization %q", got)
	}
}

func TestRetryAfter(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"3", 3 * time.Second, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), 0, true},
	} {
		got, ok := retryAfter(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   Error
	}{
		{"envelope with details", 400,
			`{"status":false,"error":{"code":"VALIDATION_ERROR","message":"phone: bad","details":[{"field":"phone","message":"bad"}]},"meta":{"requestId":"req_9","timestamp":"2026-11-23T10:00:00.123Z"}}`,
			Error{HTTPStatus: 400, Code: "VALIDATION_ERROR", Message: "phone: bad", RequestID: "req_9"}},
		{"not an envelope", 502, `<html>bad gateway</html>`,
			Error{HTTPStatus: 502, Code: CodeUnexpectedResponse, Message: "<html>bad gateway</html>"}},
		{"empty", 504, `-`, Error{HTTPStatus: 504, Code: CodeUnexpectedResponse, Message: "Gateway Timeout"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, answer{status: c.status, body: c.body})
			cl, err := New(Config{APIKey: "k", BaseURL: f.URL, MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.Customer(context.Background(), "cus_1")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v", err, err)
			}
			details := e.Details
			e.Details = nil
			if !reflect.DeepEqual(*e, c.want) {
				t.Fatalf("%+v, want %+v", *e, c.want)
			}
			if c.want.Code == "VALIDATION_ERROR" && (len(details) != 1 || *details[0].Field != "phone") {
				t.Fatalf("details %+v", details)
			}
			if !strings.Contains(err.Error(), c.want.Code) {
				t.Fatalf("Error() = %q", err.Error())
			}
		})
	}
	if _, err := New(Config{BaseURL: "http://x"}); err == nil {
		t.Error("no key accepted")
	}
	if _, err := New(Config{APIKey: "k"}); err == nil {
		t.Error("no base URL accepted")
	}
}

// The paginators follow the cursors to the last page, with the caller's
// filters on every page, and stop asking when the loop breaks.
func TestPaginators(t *testing.T) {
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.Query().Encode()) // sorted
		mu.Unlock()
		page, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Query().Get("cursor"), "c"))
		next := "null"
		if page < 2 {
			next = fmt.Sprintf(`"c%d"`, page+1)
		}
		items := []string{fmt.Sprintf(`"p%da"`, page), fmt.Sprintf(`"p%db"`, page)}
		var data string
		if strings.HasSuffix(r.URL.Path, "/customers") {
			var cs []string
			for _, id := range items {
				cs = append(cs, `{"id":`+id+`}`)
			}
			data = fmt.Sprintf(`{"customers":[%s],"pagination":{"limit":2,"hasNext":%t,"nextCursor":%s,"page":null,"total":6,"totalExact":true,"totalPages":3}}`, strings.Join(cs, ","), next != "null", next)
		} else {
			var es []string
			for _, id := range items {
				es = append(es, `{"id":`+id+`,"type":"verification.completed"}`)
			}
			data = fmt.Sprintf(`{"events":[%s],"nextCursor":%s}`, strings.Join(es, ","), next)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"status":true,"message":"ok","data":%s,"meta":{"requestId":"r","timestamp":"2026-11-23T10:00:00.123Z"}}`, data)
	}))
	defer srv.Close()
	c, err := New(Config{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	limit, status := 2, "VERIFIED"
	var ids []string
	for cu, err := range c.Customers(ctx, kycapi.ListCustomersParams{Limit: &limit, Status: &status}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, cu.Id)
	}
	if want := []string{"p0a", "p0b", "p1a", "p1b", "p2a", "p2b"}; !slices.Equal(ids, want) {
		t.Fatalf("customers %v, want %v", ids, want)
	}
	if want := []string{"limit=2&status=VERIFIED", "cursor=c1&limit=2&status=VERIFIED", "cursor=c2&limit=2&status=VERIFIED"}; !slices.Equal(queries, want) {
		t.Fatalf("queries %q, want %q", queries, want)
	}
	queries = nil
	customer := "cus_1"
	n := 0
	for e, err := range c.Events(ctx, kycapi.ListEventsParams{CustomerId: &customer}) {
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ ID string }
		raw, _ := json.Marshal(e)
		_ = json.Unmarshal(raw, &body)
		if n++; n == 3 {
			if body.ID != "p1a" {
				t.Fatalf("third event %s", raw)
			}
			break
		}
	}
	if want := []string{"customerId=cus_1", "cursor=c1&customerId=cus_1"}; !slices.Equal(queries, want) {
		t.Fatalf("queries %q, want %q", queries, want)
	}
}

// An error ends the sequence after yielding it.
func TestPaginatorError(t *testing.T) {
	f := newFake(t, answer{status: 400})
	cl, _ := client(t, f)
	n := 0
	for _, err := range cl.Customers(context.Background(), kycapi.ListCustomersParams{}) {
		n++
		if ErrorCode(err) != "E400" {
			t.Fatalf("error %v", err)
		}
	}
	if n != 1 {
		t.Fatalf("%d items", n)
	}
}

func TestWebhookVerifier(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4XZ4bGxHhZo="
	signer, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"id":"019a8c5e-3f2b-7d41-a6c9-e0f1d2b3a4c5","type":"verification.completed","createdAt":"2026-11-23T10:00:00.123Z","environment":"test","data":{"customerId":"cus_1"}}`)
	signed := func(id string, at time.Time, body []byte) http.Header {
		sig, err := signer.Sign(id, at, body)
		if err != nil {
			t.Fatal(err)
		}
		return http.Header{"Webhook-Id": {id}, "Webhook-Timestamp": {strconv.FormatInt(at.Unix(), 10)}, "Webhook-Signature": {sig}}
	}
	v, err := NewWebhookVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	id := "019a8c5e-3f2b-7d41-a6c9-e0f1d2b3a4c5"
	ev, err := v.Verify(body, signed(id, time.Now(), body))
	if err != nil || ev.Type != "verification.completed" || ev.Id.String() != id {
		t.Fatalf("%+v %v", ev, err)
	}
	for name, h := range map[string]http.Header{
		"another body":   signed(id, time.Now(), []byte(`{}`)),
		"another id":     signed("019a8c5e-3f2b-7d41-a6c9-e0f1d2b3a4c6", time.Now(), body),
		"an old attempt": signed(id, time.Now().Add(-time.Hour), body),
		"no signature":   {},
	} {
		if _, err := v.Verify(body, h); !errors.Is(err, ErrWebhookSignature) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := NewWebhookVerifier("whsec_!!"); err == nil {
		t.Error("a malformed secret accepted")
	}
}
