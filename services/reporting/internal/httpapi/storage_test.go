package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/inbox"
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

// TestAnOutcomeIsConsumedOnlyOnceItsReportIsStored: while the object
// store refuses the PDF, the event stays unprocessed and nothing is
// recorded (the consumer retries it); once the store answers, the same
// event renders exactly one report. A download while the store is down
// is 503 STORAGE_UNAVAILABLE, not a broken 200.
func TestAnOutcomeIsConsumedOnlyOnceItsReportIsStored(t *testing.T) {
	t.Parallel()
	f := setup(t)
	who := newTenant("live")
	id := f.customer(t, who, events.TypeCustomerCreated)
	mc, _ := miniotest.NewBucket(t)
	down := objstore.Bucket{Client: mc, Name: "no-such-bucket-" + strings.ToLower(id[4:20])}
	links := report.Links{PublicURL: "https://api.example.com"}
	store := postgres.New(f.pool, "reporting-events", events.Publisher{ReportURL: links.ReportURL}.Of)
	broken := report.NewService(store, down, pdf.Renderer{}, nil, time.Now, links)
	consumer := inbox.New("reporting.outcomes", nil, f.pool, logging.Discard(), events.Outcomes(broken, store.Within))
	e := outcome(t, who, id, report.Verified)
	if err := consumer.Apply(context.Background(), e); err == nil || inbox.IsPermanent(err) {
		t.Fatalf("store down: %v, want an error to retry", err)
	}
	if n := f.count(t, `SELECT count(*) FROM reports`) + f.count(t, `SELECT count(*) FROM processed_events WHERE event_id = $1`, e.ID); n != 0 {
		t.Fatalf("%d rows written while the store was down", n)
	}
	apply(t, f.outcomes, e) // redelivered, the store answering
	if r := f.report(t, who, id); r.status != http.StatusOK || f.count(t, `SELECT count(*) FROM reports`) != 1 {
		t.Fatalf("after the retry: %d %s", r.status, r.body)
	}
	// The row exists but its object store is down: 503, not a broken 200.
	tel, _ := telemetry.New(context.Background(), "reporting-test")
	mux := http.NewServeMux()
	httpapi.Register(mux, httpapi.MakeEndpoints(broken, kitserver.NewInstrumenter(logging.Discard(), tel.Meter("r"))), broken,
		func(h http.Handler, _ ...principal.Kind) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(w, r.WithContext(principal.With(r.Context(), principal.Principal{Kind: principal.KindAPIKey, OrgID: who.org, Env: principal.Env(who.env)})))
			})
		}, logging.Discard())
	g := fixture{mux: mux, pool: f.pool}
	if r := g.report(t, who, id); r.status != http.StatusServiceUnavailable || r.code() != report.CodeStorageUnavailable {
		t.Fatalf("store down on download: %d %s", r.status, r.body)
	}
}
