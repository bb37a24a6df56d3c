package edge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// reservation is what a request took from its organization's quota
// beyond itself.
type reservation struct {
	orgID string
	n     int
	day   time.Time
}

// reserveRows takes the body's "rows" from the daily quota for a bulk
// import's start (routes.ReservesRows): each customer it creates counts
// as an API call, and a start that would pass the quota is refused with
// 429 before anything is created. A body without a usable rows reserves
// nothing: the service refuses it. It returns false when it answered.
func (g *Gateway) reserveRows(w http.ResponseWriter, r *http.Request, st *state, limit int, body []byte) bool {
	var in struct {
		Rows int `json:"rows"`
	}
	if json.Unmarshal(body, &in) != nil || in.Rows <= 0 {
		return true
	}
	d := g.limiter.Reserve(r.Context(), st.p.OrgID, limit, in.Rows)
	if !d.Allowed {
		secs := strconv.Itoa(int(d.Reset.Seconds()) + 1)
		g.fail(w, r, apperr.New(apperr.KindRateLimited, CodeQuotaExceeded,
			fmt.Sprintf("This import would create %d customers, each counted as a request, but %d of today's quota of %d remain; it resets at 00:00 UTC",
				in.Rows, max(int64(limit)-d.Count, 0), limit)).WithHeader("Retry-After", secs))
		return false
	}
	now := time.Now()
	if !d.Degraded {
		st.reserved = &reservation{orgID: st.p.OrgID, n: in.Rows, day: now}
		g.usage.Seen(st.p.OrgID, st.p.KeyID, d.Count, now)
	}
	return true
}

// release gives back a reservation the service did not use (it answered
// other than 202, or not at all); once.
func (g *Gateway) release(ctx context.Context, st *state) {
	res := st.reserved
	if res == nil {
		return
	}
	st.reserved = nil
	if err := g.limiter.Release(context.WithoutCancel(ctx), res.orgID, res.n, res.day); err != nil {
		g.log.WarnContext(ctx, "unused import reservation not given back to the quota", "err", err, "rows", res.n)
	}
}
