package edge

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/kycfield/kyc/gateway/internal/routes"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/principal"
)

// CodeRateLimited refuses a client IP calling a public route too often.
const CodeRateLimited = "RATE_LIMITED"

// Public routes without a key (the report verify endpoint) take at most
// openBurst requests at once per client IP, refilled at openRate per
// second (30 a minute): plenty for people checking reports, and it makes
// guessing a 120-bit code by brute force pointless on top.
const (
	openRate  = 0.5
	openBurst = 30
	// maxTracked bounds the limiter's memory under many distinct IPs.
	maxTracked = 100_000
)

// open serves an AuthOpen route: rate-limited per client IP, then
// forwarded with an edge principal carrying the IP. The limit is per
// gateway instance (in memory, no Redis round trip on a public path).
func (g *Gateway) open(rt routes.Route, lim *ipLimiter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip := g.clientIP(r)
		if wait, ok := lim.allow(ip); !ok {
			secs := strconv.Itoa(int(math.Ceil(wait.Seconds())))
			g.fail(w, r, apperr.New(apperr.KindRateLimited, CodeRateLimited,
				"Too many requests from this address; retry in "+secs+" s").WithHeader("Retry-After", secs))
			return
		}
		if _, ok := g.limitBody(w, r, rt); !ok {
			return
		}
		g.forward(w, r, rt, &state{p: principal.Principal{Kind: principal.KindEdge, ClientIP: ip}})
	})
}

// ipLimiter keeps a token bucket (golang.org/x/time/rate) per client IP,
// at most maxTracked of them.
type ipLimiter struct {
	mu       sync.Mutex
	limit    rate.Limit
	burst    int
	now      func() time.Time
	limiters map[string]*rate.Limiter
}

func newIPLimiter(perSecond float64, burst int, now func() time.Time) *ipLimiter {
	return &ipLimiter{limit: rate.Limit(perSecond), burst: burst, now: now, limiters: map[string]*rate.Limiter{}}
}

// allow takes a token for ip, or says how long until one is there.
func (l *ipLimiter) allow(ip string) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	lim, ok := l.limiters[ip]
	if !ok {
		if len(l.limiters) >= maxTracked {
			l.prune(now)
		}
		lim = rate.NewLimiter(l.limit, l.burst)
		l.limiters[ip] = lim
	}
	if lim.AllowN(now, 1) {
		return 0, true
	}
	r := lim.ReserveN(now, 1)
	wait := r.DelayFrom(now)
	r.CancelAt(now) // only asking how long: the token stays for later
	return wait, false
}

// prune forgets limiters that have refilled (they hold no state worth
// keeping); if every one is busy, it starts over rather than grow.
func (l *ipLimiter) prune(now time.Time) {
	for ip, lim := range l.limiters {
		if lim.TokensAt(now) >= float64(l.burst) {
			delete(l.limiters, ip)
		}
	}
	if len(l.limiters) >= maxTracked {
		clear(l.limiters)
	}
}
