package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/telemetry"
	"github.com/kycfield/kyc/services/reporting/internal/events"
	"github.com/kycfield/kyc/services/reporting/internal/httpapi"
	"github.com/kycfield/kyc/services/reporting/internal/pdf"
	"github.com/kycfield/kyc/services/reporting/internal/postgres"
	"github.com/kycfield/kyc/services/reporting/internal/report"
)

// TestARenderEndsOnlyOnceItsReportIsStored: while the object store
// refuses the PDF, the render stays queued and no report is recorded;
// once the store answers, the same render makes exactly one report. A
// download while the store is down is 503 STORAGE_UNAVAILABLE, not a
// broken 200.
func TestARenderEndsOnlyOnceItsReportIsStored(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := f.customer(t, who, events.TypeCustomerCreated)
	mc, _ := miniotest.NewBucket(t)
	down := objstore.Bucket{Client: mc, Name: "no-such-bucket-" + strings.ToLower(id[4:20])}
	links := report.Links{PublicURL: "https://api.example.com"}
	store := postgres.New(f.pool, "reporting-events", events.Publisher{ReportURL: links.ReportURL}.Of)
	broken := report.NewService(store, down, pdf.Renderer{}, nil, time.Now, links)
	apply(t, f.outcomes, outcome(t, who, id, report.Verified))
	if took, _, err := broken.RenderNext(context.Background()); took == "" || err == nil {
		t.Fatalf("store down: %q %v, want a render that failed", took, err)
	}
	if n := f.count(t, `SELECT count(*) FROM reports`); n != 0 || f.count(t, `SELECT count(*) FROM renders`) != 1 {
		t.Fatalf("%d reports written while the store was down, or the render was dropped", n)
	}
	f.due(t)
	f.rendered(t) // retried, the store answering
	if r := f.report(t, who, id); r.status != http.StatusOK || f.count(t, `SELECT count(*) FROM reports`) != 1 {
		t.Fatalf("after the retry: %d %s", r.status, r.body)
	}
	// The row exists but its object store is down: 503, not a broken 200.
	tel, _ := telemetry.New(context.Background(), "reporting-test")
	mux := http.NewServeMux()
	httpapi.Register(mux, httpapi.MakeEndpoints(broken, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("r"))), broken,
		func(h http.Handler, _ ...principal.Kind) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(w, r.WithContext(principal.With(r.Context(), principal.Principal{Kind: principal.KindAPIKey, OrgID: who.org, Env: principal.Env(who.env), KeyID: "key_test"})))
			})
		}, logging.Discard())
	g := fixture{mux: mux, pool: f.pool}
	if r := g.report(t, who, id); r.status != http.StatusServiceUnavailable || r.code() != report.CodeStorageUnavailable {
		t.Fatalf("store down on download: %d %s", r.status, r.body)
	}
}
