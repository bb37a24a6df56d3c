package httpapi_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// reviewer, admin and dispatcher are staff principals as the gateway
// signs them for a console session.
var (
	reviewerAda = &principal.Principal{Kind: principal.KindStaff, StaffID: "stf_ada", StaffName: "Ada Obi", Role: principal.RoleReviewer}
	reviewerBen = &principal.Principal{Kind: principal.KindStaff, StaffID: "stf_ben", StaffName: "Ben Eze", Role: principal.RoleReviewer}
	staffAdmin  = &principal.Principal{Kind: principal.KindStaff, StaffID: "stf_adm", StaffName: "Amaka Admin", Role: principal.RoleAdmin}
	dispatcher  = &principal.Principal{Kind: principal.KindStaff, StaffID: "stf_dsp", StaffName: "Dayo Dispatch", Role: principal.RoleDispatcher}
)

func staffCall(p *principal.Principal, method, path string, body any) request {
	return request{method: method, path: path, staff: p, body: body}
}

// policy sets an organization's review policy as auth-billing's event
// would.
func (f fixture) policy(t *testing.T, orgID, policy string) {
	t.Helper()
	ctx := context.Background()
	err := f.store.Atomic(ctx, func(tx verification.Tx) error {
		return f.svc.SaveOrgSettings(ctx, tx, verification.OrgSettings{OrgID: orgID, Name: "Lagos Microfinance", ReviewPolicy: policy,
			SLA: 48 * time.Hour, Version: time.Now().UnixNano()})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// site is where the Victoria Island addresses are; far is 17 km north.
// Positions have a phone's 6 decimals (fewer is SUSPECT_LOCATION).
var site, far = [2]float64{6.428137, 3.421905}, [2]float64{6.581137, 3.421905}

// fieldVisit checks in on site, uploads two photos (the first taken at
// photoAt), spends five minutes and completes with outcome; it returns
// the completion's answer.
func (f fixture) fieldVisit(t *testing.T, a agent, adr, outcome string, photoAt [2]float64) response {
	t.Helper()
	key := adr + ids.New("k")
	// No two fixes of an agent at two addresses coincide (SUSPECT_LOCATION).
	jitter := float64(rand.IntN(9000)+1000) * 1e-7
	here := [2]float64{site[0] + jitter, site[1] - jitter}
	at := map[string]any{"latitude": here[0], "longitude": here[1], "accuracy": 10}
	expect(t, "check-in", f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/check-in", "c-"+key, at)), http.StatusOK, "")
	for i, pos := range [][2]float64{photoAt, here} {
		expect(t, "photo", f.upload(t, a, adr, "p-"+key+string(rune('a'+i)), scene(t, rand.Uint64()+uint64(i), 90), "tag", verification.PhotoTags[i],
			"latitude", jsonNum(pos[0]), "longitude", jsonNum(pos[1]), "accuracy", "8"), http.StatusCreated, "")
	}
	f.clock.Advance(5 * time.Minute)
	done := map[string]any{"outcome": outcome, "latitude": here[0] + 3e-6, "longitude": here[1], "accuracy": 9, "notes": "Met the customer."}
	switch outcome {
	case verification.Verified:
		done["verifiedAddress"] = "12 Adeola Odeku Street"
	default:
		done["outcome"], done["reason"] = verification.Rejected, outcome
	}
	return f.do(t, a.call("POST", "/agent/v1/tasks/"+adr+"/complete", "d-"+key, done))
}

// emitted is one event in the outbox.
type emitted struct {
	Type, Topic string
	Data        json.RawMessage
}

// events lists the outbox's events about the customer of adr (and the
// staff actions on adr), in order, from the id after.
func (f fixture) events(t *testing.T, adr string, after int64) ([]emitted, int64) {
	t.Helper()
	rows, err := f.store.Pool().Query(t.Context(), `SELECT id, event_type, topic, payload->'data' FROM outbox
		WHERE id > $1 AND (msg_key = (SELECT customer_id FROM jobs WHERE address_id = $2) OR payload->'data'->>'target' = $2)
		ORDER BY id`, after, adr)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []emitted
	last := after
	for rows.Next() {
		var e emitted
		if err := rows.Scan(&last, &e.Type, &e.Topic, &e.Data); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out, last
}

func types(es []emitted) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Type
		var d struct{ Status string }
		if json.Unmarshal(e.Data, &d) == nil && d.Status != "" {
			out[i] += " " + d.Status
		}
	}
	return out
}

type heldItem struct {
	AddressID, Kind, OrganizationName, CustomerName, State string
	Outcome                                                *string
	Agent                                                  *verification.Agent
	Flags                                                  []verification.FlagDetail
	HeldSince                                              *string
}

// TestFlaggedResultIsHeldThenApproved: with the organization on FLAGGED,
// a visit with a photo 17 km away waits IN_REVIEW with no completion
// event and its result hidden from the lender; a reviewer sees the
// evidence and approves, and exactly what an unheld completion emits
// follows, with the review on the address and in the audit log.
func TestFlaggedResultIsHeldThenApproved(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	f.policy(t, org, verification.ReviewFlagged)
	a := f.newAgent(t, "Lagos")

	clean := f.openLiveIn(t, org, "Lagos")
	r := f.fieldVisit(t, a, clean, verification.Verified, site)
	expect(t, "a clean visit", r, http.StatusOK, "")
	unheld, _ := f.events(t, clean, 0)

	adr := f.openLiveIn(t, org, "Lagos")
	_, start := f.events(t, adr, 0)
	r = f.fieldVisit(t, a, adr, verification.Verified, far)
	expect(t, "a flagged visit", r, http.StatusOK, "")
	var task struct {
		Status           string
		VerificationData *struct {
			VerifiedAddress    string
			VerificationPhotos []any
		}
	}
	r.data(t, &task)
	if task.Status != verification.InReview || task.VerificationData == nil || task.VerificationData.VerifiedAddress != "" ||
		len(task.VerificationData.VerificationPhotos) != 0 {
		t.Fatalf("held task: %s", r.body)
	}
	held, at := f.events(t, adr, start)
	if got := types(held); !slices.Equal(got, []string{"verification.address.updated IN_PROGRESS", "verification.address.updated IN_REVIEW"}) {
		t.Fatalf("held events: %v", got)
	}
	var upd struct {
		OverallStatus    string
		VerificationData map[string]any
	}
	_ = json.Unmarshal(held[1].Data, &upd)
	if upd.OverallStatus != verification.InProgress || upd.VerificationData["verifiedAddress"] != nil || upd.VerificationData["flags"] != nil {
		t.Fatalf("held event shows the result: %s", held[1].Data)
	}

	expect(t, "a dispatcher", f.do(t, staffCall(dispatcher, "GET", "/ops/v1/reviews", nil)), http.StatusForbidden, "ROLE_REQUIRED")
	expect(t, "an API key", f.do(t, request{method: "GET", path: "/ops/v1/reviews", kind: principal.KindAPIKey}), http.StatusUnauthorized, "UNAUTHORIZED")
	expect(t, "a bad limit", f.do(t, staffCall(reviewerAda, "GET", "/ops/v1/reviews?limit=0", nil)), http.StatusBadRequest, "VALIDATION_ERROR")
	r = f.do(t, staffCall(staffAdmin, "GET", "/ops/v1/reviews", nil))
	expect(t, "the queue", r, http.StatusOK, "")
	var list struct {
		Reviews    []heldItem
		NextCursor *string
	}
	r.data(t, &list)
	if len(list.Reviews) != 1 || list.NextCursor != nil {
		t.Fatalf("queue: %s", r.body)
	}
	it := list.Reviews[0]
	if it.AddressID != adr || it.Kind != verification.HoldResult || it.OrganizationName != "Lagos Microfinance" || it.CustomerName != "Ngozi Okafor" ||
		it.Outcome == nil || *it.Outcome != verification.Verified || it.Agent == nil || it.Agent.ID != a.id || it.Agent.Name == "" || it.HeldSince == nil ||
		!slices.ContainsFunc(it.Flags, func(d verification.FlagDetail) bool {
			return d.Code == verification.FlagPhotoFar && d.Severity == verification.SeverityWarning
		}) {
		t.Fatalf("queue item: %s", r.body)
	}

	r = f.do(t, staffCall(reviewerAda, "GET", "/ops/v1/reviews/"+adr, nil))
	expect(t, "the evidence", r, http.StatusOK, "")
	var detail struct {
		Submitted struct {
			VerifiedAddress    string
			VerificationPhotos []struct {
				ID, URL                      string
				CapturedAt                   *string
				Latitude                     *float64
				DistanceFromCompletionMeters *float64
			}
		}
		Visits      []struct{ Samples []any }
		AgentRecord *struct {
			ID           string
			RecentVisits map[string]int
		}
	}
	r.data(t, &detail)
	ph := detail.Submitted.VerificationPhotos
	if detail.Submitted.VerifiedAddress == "" || len(ph) != 2 || ph[0].DistanceFromCompletionMeters == nil || *ph[0].DistanceFromCompletionMeters < 16000 ||
		ph[0].URL != "/ops/v1/reviews/"+adr+"/photos/"+ph[0].ID || len(detail.Visits) != 1 ||
		detail.AgentRecord == nil || detail.AgentRecord.ID != a.id || detail.AgentRecord.RecentVisits["VERIFIED"] != 2 {
		t.Fatalf("evidence: %s", r.body)
	}
	r = f.do(t, staffCall(reviewerAda, "GET", ph[0].URL, nil))
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "image/jpeg" || len(r.body) == 0 {
		t.Fatalf("photo: %d %s", r.status, r.header)
	}
	expect(t, "another address's photo", f.do(t, staffCall(reviewerAda, "GET", "/ops/v1/reviews/"+clean+"/photos/"+ph[0].ID, nil)),
		http.StatusNotFound, "NOT_FOUND")
	expect(t, "a released address", f.do(t, staffCall(reviewerAda, "GET", "/ops/v1/reviews/"+clean, nil)), http.StatusNotFound, "NOT_FOUND")

	path := "/ops/v1/reviews/" + adr + "/decision"
	expect(t, "an admin deciding", f.do(t, staffCall(staffAdmin, "POST", path, map[string]any{"decision": "APPROVE"})), http.StatusForbidden, "ROLE_REQUIRED")
	expect(t, "no decision", f.do(t, staffCall(reviewerAda, "POST", path, map[string]any{})), http.StatusBadRequest, "VALIDATION_ERROR")
	r = f.do(t, staffCall(reviewerAda, "POST", path, map[string]any{"decision": "APPROVE", "note": "Photo 1 was taken at the office; the rest is right."}))
	expect(t, "approve", r, http.StatusOK, "")

	released, _ := f.events(t, adr, at)
	want := []string{"verification.address.updated VERIFIED", "verification.completed", "staff.action"}
	if got := types(released); !slices.Equal(got, want) {
		t.Fatalf("released events: %v; want %v", got, want)
	}
	if got := types(unheld); !slices.Equal(got[len(got)-2:], want[:2]) {
		t.Fatalf("an unheld completion emits %v", got)
	}
	var done struct {
		VerificationData struct {
			VerifiedAddress string
			Flags           []string
			Review          *struct{ Decision, ReviewedBy, ReviewedAt, Note string }
			Timeline        []struct{ Status, By, Decision, Note string }
		}
	}
	_ = json.Unmarshal(released[0].Data, &done)
	vd := done.VerificationData
	last := vd.Timeline[len(vd.Timeline)-1]
	if vd.VerifiedAddress != "12 Adeola Odeku Street" || !slices.Contains(vd.Flags, verification.FlagPhotoFar) || vd.Review == nil ||
		vd.Review.Decision != "APPROVE" || vd.Review.ReviewedBy != "Ada Obi" || vd.Review.ReviewedAt == "" ||
		last.Status != verification.Verified || last.By != "reviewed by Ada Obi" || last.Decision != "APPROVE" || last.Note == "" {
		t.Fatalf("released: %s", released[0].Data)
	}
	var audit struct{ ActorID, ActorName, Role, Action, Target, OrgID string }
	_ = json.Unmarshal(released[2].Data, &audit)
	if released[2].Topic != "staff-audit" || audit.ActorID != "stf_ada" || audit.Role != "reviewer" || audit.Action != "review.approve" ||
		audit.Target != adr || audit.OrgID != org {
		t.Fatalf("audit: %s %s", released[2].Topic, released[2].Data)
	}
	expect(t, "decided again", f.do(t, staffCall(reviewerBen, "POST", path, map[string]any{"decision": "APPROVE"})), http.StatusConflict, "NOT_IN_REVIEW")
	expect(t, "the photo after release", f.do(t, staffCall(reviewerAda, "GET", ph[0].URL, nil)), http.StatusNotFound, "NOT_FOUND")
	expect(t, "an unknown address", f.do(t, staffCall(reviewerAda, "POST", "/ops/v1/reviews/"+ids.New("adr")+"/decision",
		map[string]any{"decision": "APPROVE"})), http.StatusNotFound, "NOT_FOUND")
}

// TestRevisitIsNotAnAttempt: REVISIT sends the address back to the same
// agent (or another active one) with the note on its task, and counts no
// NO_ACCESS attempt; REJECT overturns a VERIFIED with the reviewer's
// reason.
func TestRevisitIsNotAnAttempt(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	f.policy(t, org, verification.ReviewAll)
	a, b := f.newAgent(t, "Lagos"), f.newAgent(t, "Lagos")
	adr := f.openLiveIn(t, org, "Lagos")
	var task struct{ AgentID string }
	_ = f.store.Pool().QueryRow(t.Context(), `SELECT agent_id FROM jobs WHERE address_id = $1`, adr).Scan(&task.AgentID)
	visitor, other := a, b
	if task.AgentID == b.id {
		visitor, other = b, a
	}
	expect(t, "a clean visit under ALL", f.fieldVisit(t, visitor, adr, verification.Verified, site), http.StatusOK, "")
	path := "/ops/v1/reviews/" + adr + "/decision"
	note := "Take the front photo from the street, with the house number."
	expect(t, "revisit without a note", f.do(t, staffCall(reviewerAda, "POST", path, map[string]any{"decision": "REVISIT"})),
		http.StatusBadRequest, "VALIDATION_ERROR")
	expect(t, "revisit to nobody", f.do(t, staffCall(reviewerAda, "POST", path, map[string]any{"decision": "REVISIT", "note": note,
		"agentId": ids.New("agt")})), http.StatusBadRequest, "VALIDATION_ERROR")
	r := f.do(t, staffCall(reviewerAda, "POST", path, map[string]any{"decision": "REVISIT", "note": note}))
	expect(t, "revisit", r, http.StatusOK, "")

	r = f.do(t, visitor.call("GET", "/agent/v1/tasks", "", nil))
	expect(t, "tasks", r, http.StatusOK, "")
	var tasks struct {
		Tasks []struct {
			ID, Status string
			ReviewNote *string
			Attempts   []any
		}
	}
	r.data(t, &tasks)
	if len(tasks.Tasks) != 1 || tasks.Tasks[0].ID != adr || tasks.Tasks[0].Status != verification.Assigned ||
		tasks.Tasks[0].ReviewNote == nil || *tasks.Tasks[0].ReviewNote != note || len(tasks.Tasks[0].Attempts) != 0 {
		t.Fatalf("the agent's task after REVISIT: %s", r.body)
	}

	// The second visit is held again; this time it goes to the other agent.
	expect(t, "the re-visit", f.fieldVisit(t, visitor, adr, verification.Verified, site), http.StatusOK, "")
	expect(t, "revisit to the other agent", f.do(t, staffCall(reviewerAda, "POST", path, map[string]any{"decision": "REVISIT",
		"note": "Second opinion, please.", "agentId": other.id})), http.StatusOK, "")
	expect(t, "the other agent's visit", f.fieldVisit(t, other, adr, verification.Verified, site), http.StatusOK, "")
	r = f.do(t, staffCall(reviewerBen, "POST", path, map[string]any{"decision": "REJECT", "reason": "CUSTOMER_NOT_KNOWN_AT_ADDRESS",
		"note": "Neighbours say she left last year."}))
	expect(t, "reject", r, http.StatusOK, "")
	res := f.result(t, adr)
	if res.Reason != verification.ReasonNotKnown || res.VerifiedAddress != "" || res.VerifiedAt != nil {
		t.Fatalf("overturned result: %+v", res)
	}
	var attempts, reviews int
	_ = f.store.Pool().QueryRow(t.Context(), `SELECT jsonb_array_length(attempts), jsonb_array_length(reviews) FROM jobs WHERE address_id = $1`, adr).
		Scan(&attempts, &reviews)
	if attempts != 0 || reviews != 3 {
		t.Fatalf("%d attempts and %d reviews; want 0 and 3", attempts, reviews)
	}
}

// TestUnsafeAreaWaitsForOperations: an UNSAFE_AREA attempt is held even
// under NONE; there is nothing to approve, and a rejection ends it.
func TestUnsafeAreaWaitsForOperations(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.newAgent(t, "Lagos")
	adr := f.openLive(t, "Lagos")
	r := f.fieldVisit(t, a, adr, verification.ReasonUnsafeArea, site)
	expect(t, "unsafe area", r, http.StatusOK, "")
	r = f.admin(t, "GET", "/admin/v1/reviews", nil)
	expect(t, "the queue through kycctl's API", r, http.StatusOK, "")
	var list struct{ Reviews []heldItem }
	r.data(t, &list)
	if len(list.Reviews) != 1 || list.Reviews[0].Kind != verification.HoldUnsafeArea || list.Reviews[0].Outcome != nil {
		t.Fatalf("queue: %s", r.body)
	}
	path := "/admin/v1/reviews/" + adr + "/decision"
	expect(t, "approve an attempt", f.admin(t, "POST", path, map[string]any{"decision": "APPROVE"}), http.StatusBadRequest, "VALIDATION_ERROR")
	expect(t, "no token", f.do(t, request{method: "POST", path: path, body: map[string]any{"decision": "APPROVE"}}), http.StatusUnauthorized, "UNAUTHORIZED")
	_, at := f.events(t, adr, 0)
	r = f.admin(t, "POST", path, map[string]any{"decision": "REJECT", "reason": "UNSAFE_AREA", "note": "Area closed by police this week."})
	expect(t, "reject", r, http.StatusOK, "")
	es, _ := f.events(t, adr, at)
	if got := types(es); !slices.Equal(got, []string{"verification.address.updated REJECTED", "verification.rejected", "staff.action"}) {
		t.Fatalf("events: %v", got)
	}
	var audit struct{ ActorID, Action string }
	_ = json.Unmarshal(es[2].Data, &audit)
	if audit.ActorID != "admin-token" || audit.Action != "review.reject" {
		t.Fatalf("audit: %s", es[2].Data)
	}
}

// TestConcurrentDecisions: two reviewers deciding the same held address
// at once; one wins, the other is told it is no longer in review.
func TestConcurrentDecisions(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	f.policy(t, org, verification.ReviewAll)
	a := f.newAgent(t, "Lagos")
	for range 3 {
		adr := f.openLiveIn(t, org, "Lagos")
		expect(t, "visit", f.fieldVisit(t, a, adr, verification.Verified, site), http.StatusOK, "")
		path := "/ops/v1/reviews/" + adr + "/decision"
		var wg sync.WaitGroup
		got := make([]response, 2)
		for i, q := range []request{
			staffCall(reviewerAda, "POST", path, map[string]any{"decision": "APPROVE"}),
			staffCall(reviewerBen, "POST", path, map[string]any{"decision": "REJECT", "reason": "WRONG_ADDRESS", "note": "Wrong house."}),
		} {
			wg.Go(func() { got[i] = f.do(t, q) })
		}
		wg.Wait()
		codes := []int{got[0].status, got[1].status}
		slices.Sort(codes)
		if !slices.Equal(codes, []int{http.StatusOK, http.StatusConflict}) {
			t.Fatalf("two decisions: %d %s / %d %s", got[0].status, got[0].body, got[1].status, got[1].body)
		}
		var n int
		_ = f.store.Pool().QueryRow(t.Context(), `SELECT count(*) FROM outbox WHERE event_type = 'staff.action' AND payload->'data'->>'target' = $1`, adr).Scan(&n)
		if n != 1 {
			t.Fatalf("%d audit records for one decision", n)
		}
	}
}

// TestReviewQueuePages: the queue pages oldest held first with a cursor,
// and a bad cursor is a 400.
func TestReviewQueuePages(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := ids.New("org")
	f.policy(t, org, verification.ReviewAll)
	a := f.newAgent(t, "Lagos")
	var held []string
	for range 3 {
		adr := f.openLiveIn(t, org, "Lagos")
		expect(t, "visit", f.fieldVisit(t, a, adr, verification.Verified, site), http.StatusOK, "")
		held = append(held, adr)
	}
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		r := f.do(t, staffCall(reviewerAda, "GET", "/ops/v1/reviews?limit=2&cursor="+cursor, nil))
		expect(t, "page", r, http.StatusOK, "")
		var p struct {
			Reviews    []heldItem
			NextCursor *string
		}
		r.data(t, &p)
		for _, it := range p.Reviews {
			got = append(got, it.AddressID)
		}
		if p.NextCursor == nil {
			break
		}
		if page > 2 || len(p.Reviews) != 2 {
			t.Fatalf("page %d: %s", page, r.body)
		}
		cursor = *p.NextCursor
	}
	if !slices.Equal(got, held) {
		t.Fatalf("queue %v; want %v (oldest first)", got, held)
	}
	expect(t, "a bad cursor", f.do(t, staffCall(reviewerAda, "GET", "/ops/v1/reviews?cursor=nonsense", nil)), http.StatusBadRequest, "VALIDATION_ERROR")
}
