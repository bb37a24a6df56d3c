package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/principal"
	"github.com/kycfield/kyc/pkg/staffaudit"
	"github.com/kycfield/kyc/services/verification/internal/verification"
	"github.com/kycfield/kyc/services/verification/internal/verification/view"
)

// ReviewEndpoints are the review queue (review before release): the
// console's /ops/v1/reviews (staff sessions through the gateway) and
// kycctl's /admin/v1/reviews (the operators' token) share them.
type ReviewEndpoints struct {
	List   kitserver.Endpoint[reviewList]
	Get    kitserver.Endpoint[addressID]
	Decide kitserver.Endpoint[decision]
}

type reviewList struct {
	cursor string
	limit  int
}

type decision struct {
	addressID string
	Decision  string `json:"decision" required:"is required (APPROVE, REJECT or REVISIT)"`
	Reason    string `json:"reason"`
	Note      string `json:"note"`
	AgentID   string `json:"agentId"`
}

// ReviewItem is one held address in the queue.
type ReviewItem struct {
	AddressID      string                    `json:"addressId"`
	CustomerID     string                    `json:"customerId"`
	CustomerName   string                    `json:"customerName"`
	OrganizationID string                    `json:"organizationId"`
	Organization   string                    `json:"organizationName"`
	State          string                    `json:"state"`
	LGA            *string                   `json:"lga"`
	Kind           string                    `json:"kind"`
	Outcome        *string                   `json:"outcome"`
	Agent          *verification.Agent       `json:"agent"`
	Flags          []verification.FlagDetail `json:"flags"`
	HeldSince      *string                   `json:"heldSince"`
}

// ReviewDetail is everything a reviewer weighs about one held address.
type ReviewDetail struct {
	ReviewItem
	ReviewPolicy string                 `json:"reviewPolicy"`
	Address      view.Address           `json:"address"`
	Submitted    *view.VerificationData `json:"submitted"`
	Visits       []VisitTrail           `json:"visits"`
	PhotoMatches []PhotoMatch           `json:"photoMatches"`
	AgentRecord  *AgentRecord           `json:"agentRecord"`
}

// AgentRecord is the visiting agent as a reviewer weighs it.
type AgentRecord struct {
	Agent
	// RecentVisits counts its visits over the last RecordDays days by
	// outcome.
	RecentVisits map[string]int `json:"recentVisits"`
	Days         int            `json:"days"`
}

func reviewItem(j verification.Job, orgName, customerName, agentName string) ReviewItem {
	it := ReviewItem{AddressID: j.AddressID, CustomerID: j.CustomerID, CustomerName: customerName, OrganizationID: j.OrgID,
		Organization: orgName, State: j.Address.State, Flags: []verification.FlagDetail{}}
	if j.Address.LGA != "" {
		it.LGA = &j.Address.LGA
	}
	if h := j.Hold; h != nil {
		it.Kind, it.HeldSince = h.Kind, envelope.Timestamp(h.Since)
		it.Agent = &verification.Agent{ID: h.AgentID, Name: agentName}
		if h.Outcome != "" {
			it.Outcome = &h.Outcome
		}
	}
	if j.Result != nil && j.Result.FlagDetails != nil {
		it.Flags = j.Result.FlagDetails
	}
	return it
}

// opsPhotoURL is where the console reads a held address's photo.
func opsPhotoURL(addressID string) func(string) string {
	return func(photoID string) string {
		return "/ops/v1/reviews/" + url.PathEscape(addressID) + "/photos/" + url.PathEscape(photoID)
	}
}

func reviewDetail(r view.Renderer, rc verification.ReviewCase) ReviewDetail {
	j := rc.Job
	name := ""
	if rc.Agent != nil {
		name = rc.Agent.Name
	}
	ev := evidenceView(j.AddressID, rc.Evidence)
	d := ReviewDetail{ReviewItem: reviewItem(j, rc.Org.Name, rc.Case.FirstName+" "+rc.Case.LastName, name),
		ReviewPolicy: rc.Org.ReviewPolicy, Address: r.Address(j), Submitted: r.Submitted(j, opsPhotoURL(j.AddressID)),
		Visits: ev.Visits, PhotoMatches: ev.PhotoMatches}
	d.Address.VerificationData = nil // the lender's view of it; Submitted is the reviewer's
	if rc.Agent != nil {
		d.AgentRecord = &AgentRecord{Agent: agentView(rc.Agent.FieldAgent), RecentVisits: rc.Agent.Visits, Days: verification.RecordDays}
	}
	return d
}

// reviewer is who decides, from the caller's principal: a staff member,
// or the operators' admin token (kycctl).
func reviewer(ctx context.Context) verification.Reviewer {
	p, _ := principal.From(ctx)
	if p.Kind == principal.KindStaff {
		return verification.Reviewer{ID: p.StaffID, Name: p.StaffName}
	}
	return verification.Reviewer{ID: staffaudit.AdminTokenActor, Name: "operations (admin token)"}
}

func makeReviewEndpoints(svc *verification.Service, r view.Renderer, in *kitserver.Instrumenter) ReviewEndpoints {
	return ReviewEndpoints{
		List: kitserver.NewEndpoint(func(ctx context.Context, req reviewList) (kitserver.Result, error) {
			page, err := svc.Reviews(ctx, req.cursor, req.limit)
			if err != nil {
				return kitserver.Result{}, err
			}
			items := make([]ReviewItem, len(page.Items))
			for i, h := range page.Items {
				items[i] = reviewItem(h.Job, h.OrgName, h.CustomerName, h.AgentName)
			}
			var next *string
			if page.Next != "" {
				next = &page.Next
			}
			return kitserver.Result{Message: "Reviews retrieved successfully", Data: map[string]any{"reviews": items, "nextCursor": next}}, nil
		}, in.Wrap("ops_list_reviews")),
		Get: kitserver.NewEndpoint(func(ctx context.Context, id addressID) (kitserver.Result, error) {
			rc, err := svc.Review(ctx, string(id))
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Message: "Review retrieved successfully", Data: reviewDetail(r, rc)}, nil
		}, in.Wrap("ops_get_review")),
		Decide: kitserver.NewEndpoint(func(ctx context.Context, req decision) (kitserver.Result, error) {
			j, err := svc.Decide(ctx, req.addressID, verification.Decision{Decision: req.Decision, Reason: req.Reason,
				Note: req.Note, AgentID: req.AgentID}, reviewer(ctx))
			if err != nil {
				return kitserver.Result{}, err
			}
			return kitserver.Result{Message: "Decision recorded", Data: map[string]any{"addressId": j.AddressID,
				"customerId": j.CustomerID, "decision": req.Decision, "status": j.Status, "agentId": j.AgentID}}, nil
		}, in.Wrap("ops_decide_review")),
	}
}

// MaxReviewPage is the largest page of the review queue.
const MaxReviewPage = 100

func decodeReviewList(_ context.Context, r *http.Request) (reviewList, error) {
	q := r.URL.Query()
	out := reviewList{cursor: q.Get("cursor"), limit: 20}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxReviewPage {
			return out, apperr.Validation(apperr.Detail{Field: "limit", Message: "must be a whole number from 1 to 100"})
		}
		out.limit = n
	}
	return out, nil
}

func decodeAddressID(_ context.Context, r *http.Request) (addressID, error) {
	return addressID(r.PathValue("addressId")), nil
}

func decodeDecision(ctx context.Context, r *http.Request) (decision, error) {
	req, err := decodeJSON[decision](ctx, r)
	req.addressID = r.PathValue("addressId")
	return req, err
}

// RegisterReviews mounts the review queue twice: for the console under
// /ops/v1 (staff principals signed by the gateway: reviewers and admins
// read, only reviewers decide), and for kycctl under /admin/v1 (the
// operators' token, audited as such).
func RegisterReviews(mux *http.ServeMux, e ReviewEndpoints, svc *verification.Service, photos PhotoStore,
	protect func(http.Handler, ...principal.Kind) http.Handler, adminToken string, log *slog.Logger) {
	read := principal.RequireRole(log, principal.RoleReviewer, principal.RoleAdmin)
	decide := principal.RequireRole(log, principal.RoleReviewer)
	staff := func(role func(http.Handler) http.Handler, h http.Handler) http.Handler {
		return protect(role(h), principal.KindStaff)
	}
	mux.Handle("GET /ops/v1/reviews", staff(read, kitserver.NewHandler(e.List, decodeReviewList, log)))
	mux.Handle("GET /ops/v1/reviews/{addressId}", staff(read, kitserver.NewHandler(e.Get, decodeAddressID, log)))
	mux.Handle("GET /ops/v1/reviews/{addressId}/photos/{photoId}", staff(read, reviewPhoto(svc, photos, log)))
	mux.Handle("POST /ops/v1/reviews/{addressId}/decision", staff(decide, kitserver.NewHandler(e.Decide, decodeDecision, log)))

	admin := func(h http.Handler) http.Handler { return kitserver.RequireAdmin(adminToken, log, h) }
	mux.Handle("GET /admin/v1/reviews", admin(kitserver.NewHandler(e.List, decodeReviewList, log)))
	mux.Handle("GET /admin/v1/reviews/{addressId}", admin(kitserver.NewHandler(e.Get, decodeAddressID, log)))
	mux.Handle("POST /admin/v1/reviews/{addressId}/decision", admin(kitserver.NewHandler(e.Decide, decodeDecision, log)))
}

// reviewPhoto streams a photo of a held address to the console.
func reviewPhoto(svc *verification.Service, photos PhotoStore, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		var p verification.Photo
		err := kitserver.RetryRead(ctx, log, func() (err error) {
			p, err = svc.ReviewPhoto(ctx, r.PathValue("addressId"), r.PathValue("photoId"))
			return err
		})
		if err != nil {
			envelope.Fail(ctx, w, log, err)
			return
		}
		servePhoto(w, r, p, photos, log)
	})
}
