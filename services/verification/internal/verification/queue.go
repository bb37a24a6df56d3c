package verification

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// The operations console's queue: every live address that is not final,
// across organizations, in the order of what operations promised.

// OpenStatuses are the statuses of live work the queue shows: IN_REVIEW
// is a held live result (review before release, spelt out here so this
// file does not depend on that change).
var OpenStatuses = []string{Pending, Assigned, InProgress, "IN_REVIEW"}

// dueBy is the promise made for a live job opened now: now plus the
// organization's SLA target. It is stored with the job, so a later change
// of the target does not move promises already made.
func dueBy(ctx context.Context, tx Tx, orgID string, now time.Time) (*time.Time, error) {
	o, err := tx.OrgSettings(ctx, orgID)
	if err != nil {
		return nil, err
	}
	d := now.Add(o.SLA)
	return &d, nil
}

// Due filters.
const (
	DueOverdue = "overdue"
	DueToday   = "today"
)

// QueueFilter narrows the queue; zero fields do not filter.
type QueueFilter struct {
	State, LGA, Status, OrgID, AgentID string
	// OlderThan keeps addresses created more than this long ago.
	OlderThan time.Duration
	// Due is DueOverdue or DueToday (Lagos time).
	Due   string
	Limit int
	After *QueueCursor
}

// QueueCursor is where a page ends: the last item's promise and id.
type QueueCursor struct {
	DueBy     time.Time
	AddressID string
}

// Queue limits.
const (
	DefaultQueueLimit = 50
	MaxQueueLimit     = 200
	maxOlderThan      = 365 * 24 * time.Hour
)

// Check normalizes the filter's names (state and LGA in the gazetteer's
// spelling) or reports every problem with its field.
func (f QueueFilter) Check() (QueueFilter, error) {
	var d []apperr.Detail
	if f.State != "" {
		name, ok := places().NormalizeState(f.State)
		if !ok {
			d = append(d, apperr.Detail{Field: "state", Message: "is not a Nigerian state or the FCT", Suggestions: places().SuggestStates(f.State)})
		}
		f.State = name
	}
	if f.LGA != "" {
		switch name, ok := places().NormalizeLGA(f.State, f.LGA); {
		case f.State == "":
			d = append(d, apperr.Detail{Field: "lga", Message: "needs state too"})
		case !ok:
			d = append(d, apperr.Detail{Field: "lga", Message: "is not a local government area of " + f.State})
		default:
			f.LGA = name
		}
	}
	if f.Status != "" && !slices.Contains(OpenStatuses, f.Status) {
		d = append(d, apperr.Detail{Field: "status", Message: "must be one of " + strings.Join(OpenStatuses, ", ")})
	}
	if f.OrgID != "" && !ids.Valid("org", f.OrgID) {
		d = append(d, apperr.Detail{Field: "orgId", Message: "is not an organization id"})
	}
	if f.AgentID != "" && !ids.Valid("agt", f.AgentID) {
		d = append(d, apperr.Detail{Field: "agentId", Message: "is not an agent id"})
	}
	if f.OlderThan < 0 || f.OlderThan > maxOlderThan {
		d = append(d, apperr.Detail{Field: "olderThanHours", Message: "must be 0-8760"})
	}
	if f.Due != "" && f.Due != DueOverdue && f.Due != DueToday {
		d = append(d, apperr.Detail{Field: "due", Message: "must be overdue or today"})
	}
	switch {
	case f.Limit == 0:
		f.Limit = DefaultQueueLimit
	case f.Limit < 1 || f.Limit > MaxQueueLimit:
		d = append(d, apperr.Detail{Field: "limit", Message: fmt.Sprintf("must be 1-%d", MaxQueueLimit)})
	}
	if len(d) > 0 {
		return f, apperr.Validation(d...)
	}
	return f, nil
}

// QueueItem is one open live address as operations see it.
type QueueItem struct {
	AddressID, CustomerID, OrgID string
	OrgName, CustomerName        string
	Address                      Address
	Status                       string
	Agent                        *Agent
	CreatedAt, DueBy             time.Time
	Overdue, DueToday            bool
}

// QueueSummary counts the addresses the filter matches (whatever its due
// part), overdue and due today.
type QueueSummary struct{ Total, Overdue, DueToday int }

// QueuePage is one page of the queue.
type QueuePage struct {
	Items   []QueueItem
	Next    *QueueCursor
	Summary QueueSummary
}

// Window is "now" for the queue: overdue before Now, due today before
// EndOfDay (midnight in Lagos).
type Window struct{ Now, EndOfDay time.Time }

// windowAt is the queue's window at now.
func windowAt(now time.Time) Window {
	l := now.In(Lagos)
	return Window{Now: now, EndOfDay: time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, Lagos).UTC()}
}

// OpsStore is what the console reads.
type OpsStore interface {
	// Queue reads one page of open live work and the filter's counts.
	Queue(ctx context.Context, f QueueFilter, w Window) (QueuePage, error)
	// OpenByArea counts open live work per state and LGA.
	OpenByArea(ctx context.Context) ([]AreaCount, error)
	// AgentWeeks are the agents' figures over visits ended since.
	AgentWeeks(ctx context.Context, since time.Time) (map[string]AgentWeek, error)
	// TouchAgent records that the agent was seen at now (at most once a
	// minute is written).
	TouchAgent(ctx context.Context, agentID string, now time.Time) error
}

// OpsTx is what the console's changes do inside a transaction.
type OpsTx interface {
	// WaitingLiveIn lists live PENDING jobs in states, oldest first.
	WaitingLiveIn(ctx context.Context, states []string, limit int) ([]Waiting, error)
	// SaveAgent stores an agent's name, phone and coverage.
	SaveAgent(ctx context.Context, a FieldAgent) error
}

// Queue reads a page of the queue.
func (s *Service) Queue(ctx context.Context, f QueueFilter) (QueuePage, error) {
	f, err := f.Check()
	if err != nil {
		return QueuePage{}, err
	}
	return s.store.Queue(ctx, f, windowAt(s.now().UTC()))
}

// Mark sets an item's overdue and due-today flags for the window.
func (it *QueueItem) Mark(w Window) {
	it.Overdue = it.DueBy.Before(w.Now)
	it.DueToday = !it.Overdue && it.DueBy.Before(w.EndOfDay)
}

// ReassignResult is one address's outcome of a reassignment of many.
type ReassignResult struct {
	AddressID string
	Task      *Task
	Err       error
}

// MaxReassign bounds one reassignment of many.
const MaxReassign = 100

// ReassignMany gives each address to the agent, each in its own
// transaction (one address refused does not hold the others back), and
// reports every address's outcome.
func (s *Service) ReassignMany(ctx context.Context, addressIDs []string, agentID string) ([]ReassignResult, error) {
	if err := checkReassign(addressIDs, agentID); err != nil {
		return nil, err
	}
	if _, err := s.agent(ctx, agentID); err != nil {
		return nil, err
	}
	out := make([]ReassignResult, len(addressIDs))
	for i, id := range addressIDs {
		out[i].AddressID = id
		if !ids.Valid("adr", id) {
			out[i].Err = ErrTaskNotFound
			continue
		}
		t, err := s.Reassign(ctx, id, agentID)
		if err != nil {
			if _, domain := apperr.As(err); !domain {
				return nil, err // the database, not the address: fail the call
			}
			out[i].Err = err
			continue
		}
		out[i].Task = &t
	}
	return out, nil
}

func checkReassign(addressIDs []string, agentID string) error {
	var d []apperr.Detail
	if n := len(addressIDs); n < 1 || n > MaxReassign {
		d = append(d, apperr.Detail{Field: "addressIds", Message: fmt.Sprintf("must list 1-%d addresses", MaxReassign)})
	}
	seen := map[string]bool{}
	for i, id := range addressIDs {
		if seen[id] {
			d = append(d, apperr.Detail{Field: fmt.Sprintf("addressIds[%d]", i), Message: "is listed twice"})
		}
		seen[id] = true
	}
	if !ids.Valid("agt", agentID) {
		d = append(d, apperr.Detail{Field: "agentId", Message: "is not an agent id"})
	}
	if len(d) > 0 {
		return apperr.Validation(d...)
	}
	return nil
}

// agent reads one agent (ErrAgentNotFound for an unknown id).
func (s *Service) agent(ctx context.Context, id string) (FieldAgent, error) {
	var a FieldAgent
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		a, err = tx.Agent(ctx, id)
		return err
	})
	return a, err
}
