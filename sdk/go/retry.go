package kyc

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// retrier is the generated client's HTTP doer: it retries what is safe to
// retry and gives each POST an Idempotency-Key.
//
// A POST without an Idempotency-Key gets one before its first attempt, and
// every retry of that call sends the same key, so the platform runs it once
// and replays the first answer (the gateway keeps it 24 hours). Retried are
// network errors, 5xx (but 501, which a retry cannot change; 503
// SERVICE_OVERLOADED is the gateway shedding a burst before the request did
// anything), 429, and a
// 409 that carries Retry-After (REQUEST_IN_PROGRESS: the first attempt is
// still running). Retry-After is honoured up to maxWait; a longer one (a
// daily quota that resets at midnight) is returned to the caller instead.
// PATCH is never retried: the API gives it no idempotency key.
type retrier struct {
	client     *http.Client
	maxRetries int
	maxWait    time.Duration
	// sleep waits d or until ctx ends (replaced in tests).
	sleep func(ctx context.Context, d time.Duration) error
}

func (r *retrier) Do(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.Header.Get("Idempotency-Key") == "" {
		req.Header.Set("Idempotency-Key", newIdempotencyKey())
	}
	retryable := req.Method != http.MethodPatch && (req.Body == nil || req.Body == http.NoBody || req.GetBody != nil)
	for attempt := 0; ; attempt++ {
		try := req
		if attempt > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			try = req.Clone(req.Context())
			try.Body = body
		}
		res, err := r.client.Do(try)
		if !retryable || attempt >= r.maxRetries || req.Context().Err() != nil {
			return res, err
		}
		wait, again := r.backoff(attempt, res, err)
		if !again {
			return res, err
		}
		if res != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
			res.Body.Close()
		}
		if err := r.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// backoff says whether an attempt that ended with res or err is worth
// repeating, and after how long.
func (r *retrier) backoff(attempt int, res *http.Response, err error) (time.Duration, bool) {
	// Exponential from 0.5 s, at most 8 s, with full jitter in its upper half.
	base := min(500*time.Millisecond<<attempt, 8*time.Second)
	wait := base/2 + rand.N(base/2+1)
	if err != nil {
		return wait, true
	}
	after, hasAfter := retryAfter(res.Header.Get("Retry-After"))
	switch {
	case res.StatusCode == http.StatusTooManyRequests,
		res.StatusCode >= 500 && res.StatusCode != http.StatusNotImplemented,
		res.StatusCode == http.StatusConflict && hasAfter:
	default:
		return 0, false
	}
	if hasAfter {
		if after > r.maxWait {
			return 0, false
		}
		wait = after
	}
	return wait, true
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// newIdempotencyKey is a random UUID (version 4).
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // never fails (crypto/rand, Go 1.24+ panics rather)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
