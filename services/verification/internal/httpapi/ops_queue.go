package httpapi

import (
	"context"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// The operations console's queue and coverage, under /ops/v1, for staff
// principals only (RegisterOps).

// QueueItem is one open live address in the queue.
type QueueItem struct {
	AddressID        string         `json:"addressId"`
	CustomerID       string         `json:"customerId"`
	OrgID            string         `json:"orgId"`
	OrganizationName string         `json:"organizationName"`
	CustomerName     string         `json:"customerName"`
	AddressLine      string         `json:"addressLine"`
	State            string         `json:"state"`
	LGA              *string        `json:"lga"`
	Status           string         `json:"status"`
	Agent            *agentRef      `json:"agent"`
	CreatedAt        *string        `json:"createdAt"`
	DueBy            *string        `json:"dueBy"`
	Overdue          bool           `json:"overdue"`
	DueToday         bool           `json:"dueToday"`
	Address          addressSummary `json:"address"`
}

type agentRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type addressSummary struct {
	StreetNumber string `json:"streetNumber,omitempty"`
	StreetName   string `json:"streetName"`
	Landmark     string `json:"landmark,omitempty"`
	City         string `json:"city"`
}

// addressLine is an address on one line, as a person reads it.
func addressLine(a verification.Address) string {
	street := strings.TrimSpace(a.StreetNumber + " " + a.StreetName)
	parts := []string{street, a.City}
	if a.LGA != "" && !strings.EqualFold(a.LGA, a.City) {
		parts = append(parts, a.LGA)
	}
	return strings.Join(append(parts, a.State), ", ")
}

func queueItem(it verification.QueueItem) QueueItem {
	out := QueueItem{AddressID: it.AddressID, CustomerID: it.CustomerID, OrgID: it.OrgID, OrganizationName: it.OrgName,
		CustomerName: it.CustomerName, AddressLine: addressLine(it.Address), State: it.Address.State, Status: it.Status,
		CreatedAt: envelope.Timestamp(it.CreatedAt), DueBy: envelope.Timestamp(it.DueBy), Overdue: it.Overdue, DueToday: it.DueToday,
		Address: addressSummary{StreetNumber: it.Address.StreetNumber, StreetName: it.Address.StreetName, Landmark: it.Address.Landmark, City: it.Address.City}}
	if it.Address.LGA != "" {
		out.LGA = &it.Address.LGA
	}
	if it.Agent != nil {
		out.Agent = &agentRef{ID: it.Agent.ID, Name: it.Agent.Name}
	}
	return out
}

// encodeCursor and decodeCursor keep a page's end opaque to clients.
func encodeCursor(c *verification.QueueCursor) *string {
	if c == nil {
		return nil
	}
	s := base64.RawURLEncoding.EncodeToString([]byte(c.DueBy.UTC().Format(time.RFC3339Nano) + "|" + c.AddressID))
	return &s
}

func decodeCursor(s string) (*verification.QueueCursor, error) {
	bad := apperr.Validation(apperr.Detail{Field: "cursor", Message: "is not a cursor this endpoint returned"})
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	at, id, ok := strings.Cut(string(b), "|")
	t, err := time.Parse(time.RFC3339Nano, at)
	if !ok || err != nil || !strings.HasPrefix(id, "adr_") {
		return nil, bad
	}
	return &verification.QueueCursor{DueBy: t, AddressID: id}, nil
}

// decodeQueue reads the queue's filter from the query string.
func decodeQueue(_ context.Context, r *http.Request) (verification.QueueFilter, error) {
	q := r.URL.Query()
	f := verification.QueueFilter{State: q.Get("state"), LGA: q.Get("lga"), Status: q.Get("status"), OrgID: q.Get("orgId"),
		AgentID: q.Get("agentId"), Due: q.Get("due")}
	var d []apperr.Detail
	if v := q.Get("olderThanHours"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 8760 {
			d = append(d, apperr.Detail{Field: "olderThanHours", Message: "must be a whole number of hours, 0-8760"})
		}
		f.OlderThan = time.Duration(n) * time.Hour
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > verification.MaxQueueLimit {
			d = append(d, apperr.Detail{Field: "limit", Message: "must be a whole number, 1-200"})
		}
		f.Limit = n
	}
	if v := q.Get("cursor"); v != "" {
		c, err := decodeCursor(v)
		if err != nil {
			return f, err
		}
		f.After = c
	}
	if len(d) > 0 {
		return f, apperr.Validation(d...)
	}
	return f, nil
}

type reassignMany struct {
	AddressIDs []string `json:"addressIds" required:"is required: the addresses to reassign (1-100)"`
	AgentID    string   `json:"agentId" required:"is required"`
}

// reassignResult is one address's outcome: its task, or why not.
type reassignResult struct {
	AddressID string              `json:"addressId"`
	OK        bool                `json:"ok"`
	Status    *string             `json:"status"`
	Agent     *agentRef           `json:"agent"`
	Error     *envelope.ErrorBody `json:"error"`
}

func reassignView(rs []verification.ReassignResult) map[string]any {
	out := make([]reassignResult, len(rs))
	n := 0
	for i, r := range rs {
		out[i] = reassignResult{AddressID: r.AddressID, OK: r.Err == nil}
		if r.Task != nil {
			n++
			out[i].Status = &r.Task.Status
			out[i].Agent = &agentRef{ID: r.Task.AgentID}
		}
		if e, ok := apperr.As(r.Err); ok {
			out[i].Error = &envelope.ErrorBody{Code: e.Code, Message: e.Message}
		}
	}
	return map[string]any{"results": out, "reassigned": n, "refused": len(rs) - n}
}

// Area is one state or LGA of the coverage.
type Area struct {
	Name      string `json:"name"`
	Open      int    `json:"open"`
	Waiting   int    `json:"waiting"`
	Agents    int    `json:"agents"`
	LGAAgents *int   `json:"lgaAgents,omitempty"`
	Uncovered bool   `json:"uncovered"`
	LGAs      []Area `json:"lgas,omitempty"`
}

func areaView(a verification.AreaCoverage, lga bool) Area {
	out := Area{Name: a.Name, Open: a.Open, Waiting: a.Waiting, Agents: a.Agents, Uncovered: a.Uncovered()}
	if lga {
		n := a.LGAAgents
		out.LGAAgents = &n
		return out
	}
	out.LGAs = make([]Area, len(a.LGAs))
	for i, l := range a.LGAs {
		out.LGAs[i] = areaView(l, true)
	}
	return out
}

func coverageView(states []verification.AreaCoverage) map[string]any {
	out := make([]Area, len(states))
	var open, waiting, uncovered int
	for i, s := range states {
		out[i] = areaView(s, false)
		open, waiting = open+s.Open, waiting+s.Waiting
		for _, l := range s.LGAs {
			if l.Uncovered() {
				uncovered++
			}
		}
	}
	return map[string]any{"states": out, "summary": map[string]int{"open": open, "waiting": waiting, "uncoveredLgas": uncovered}}
}

func queueEndpoints(svc *verification.Service, in *kitserver.Instrumenter) (q kitserver.Endpoint[verification.QueueFilter],
	re kitserver.Endpoint[reassignMany], cov kitserver.Endpoint[struct{}]) {
	q = kitserver.NewEndpoint(func(ctx context.Context, f verification.QueueFilter) (kitserver.Result, error) {
		page, err := svc.Queue(ctx, f)
		if err != nil {
			return kitserver.Result{}, err
		}
		items := make([]QueueItem, len(page.Items))
		for i, it := range page.Items {
			items[i] = queueItem(it)
		}
		return kitserver.Result{Message: "Queue retrieved successfully", Data: map[string]any{"items": items,
			"summary":    map[string]int{"total": page.Summary.Total, "overdue": page.Summary.Overdue, "dueToday": page.Summary.DueToday},
			"nextCursor": encodeCursor(page.Next)}}, nil
	}, in.Wrap("ops_queue"))
	re = kitserver.NewEndpoint(func(ctx context.Context, req reassignMany) (kitserver.Result, error) {
		rs, err := svc.ReassignMany(ctx, req.AddressIDs, req.AgentID)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Reassignment done; see each address's result", Data: reassignView(rs)}, nil
	}, in.Wrap("ops_queue_reassign"))
	cov = kitserver.NewEndpoint(func(ctx context.Context, _ struct{}) (kitserver.Result, error) {
		states, err := svc.Coverage(ctx)
		if err != nil {
			return kitserver.Result{}, err
		}
		return kitserver.Result{Message: "Coverage retrieved successfully", Data: coverageView(states)}, nil
	}, in.Wrap("ops_coverage"))
	return q, re, cov
}
