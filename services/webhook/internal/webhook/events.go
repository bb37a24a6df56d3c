package webhook

import (
	"context"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// The events API: every message an organization's webhooks could
// receive (every subscribable type, whether or not an endpoint exists),
// newest first, for EventWindow. It is how a client catches up after an
// outage: an event's id is the webhook-id of its deliveries and its body
// is the delivered body, byte for byte.
const (
	EventWindow       = 30 * 24 * time.Hour
	DefaultEventLimit = 20
	MaxEventLimit     = 100
)

// ErrEventNotFound is an event unknown to the caller: another
// organization's, the other environment's and an expired one alike.
var ErrEventNotFound = apperr.NotFound("Event")

// Event is one stored message as the events API shows it.
type Event struct {
	ID        string
	CreatedAt time.Time
	// Body is the webhook body ({id, type, createdAt, environment, data}).
	Body []byte
}

// EventCursor is the last event of a page: the next page starts after it
// in (created_at desc, id desc) order.
type EventCursor struct {
	CreatedAt time.Time
	ID        string
}

// EventQuery is a validated GET /events request.
type EventQuery struct {
	Type, CustomerID string
	Limit            int
	After            *EventCursor
}

// RawEventQuery is the request as received (nil: parameter absent; an
// empty type, customerId or cursor reads as absent, an empty limit does
// not).
type RawEventQuery struct {
	Type, CustomerID, Limit, Cursor *string
}

// EventStore reads stored events of one tenant created after since.
type EventStore interface {
	// Events returns up to q.Limit events matching q, newest first.
	Events(ctx context.Context, who Caller, q EventQuery, since time.Time) ([]Event, error)
	// Event returns one event, or ErrEventNotFound.
	Event(ctx context.Context, who Caller, id string, since time.Time) (Event, error)
}

// Sealer encrypts and authenticates cursors (the service's keyring).
type Sealer interface {
	Seal(plaintext, aad []byte) []byte
	Open(sealed, aad []byte) ([]byte, error)
}

// Events serves the events API.
type Events struct {
	store  EventStore
	sealer Sealer
	now    func() time.Time
}

// NewEvents builds the events use cases.
func NewEvents(store EventStore, sealer Sealer, now func() time.Time) *Events {
	return &Events{store: store, sealer: sealer, now: now}
}

// EventPage is one page; Next is "" on the last page.
type EventPage struct {
	Events []Event
	Next   string
}

// List validates raw and returns the page it asks for.
func (s *Events) List(ctx context.Context, who Caller, raw RawEventQuery) (EventPage, error) {
	q, err := s.parse(who, raw)
	if err != nil {
		return EventPage{}, err
	}
	want := q.Limit
	q.Limit++ // one more tells whether there is a next page
	evs, err := s.store.Events(ctx, who, q, s.now().Add(-EventWindow))
	if err != nil {
		return EventPage{}, err
	}
	page := EventPage{Events: evs}
	if len(evs) > want {
		page.Events = evs[:want]
		last := page.Events[want-1]
		page.Next = s.sealCursor(who, q, EventCursor{CreatedAt: last.CreatedAt, ID: last.ID})
	}
	return page, nil
}

// Get returns one event of the caller's tenant within the window.
func (s *Events) Get(ctx context.Context, who Caller, id string) (Event, error) {
	if id == "" || len(id) > 100 {
		return Event{}, ErrEventNotFound
	}
	return s.store.Event(ctx, who, id, s.now().Add(-EventWindow))
}

// parse checks every parameter; out of range values are errors, not
// silently clamped.
func (s *Events) parse(who Caller, raw RawEventQuery) (EventQuery, error) {
	q := EventQuery{Limit: DefaultEventLimit}
	var ck apperr.Checker
	if raw.Type != nil && *raw.Type != "" {
		if !slices.Contains(Subscribable, *raw.Type) {
			ck.Fail("type", "must be one of %s", strings.Join(Subscribable, ", "))
		}
		q.Type = *raw.Type
	}
	if raw.CustomerID != nil && *raw.CustomerID != "" {
		if !ids.Valid("cus", *raw.CustomerID) {
			ck.Fail("customerId", "must be a customer id (cus_...)")
		}
		q.CustomerID = *raw.CustomerID
	}
	if raw.Limit != nil {
		n, err := strconv.Atoi(strings.TrimSpace(*raw.Limit))
		if err != nil || n < 1 || n > MaxEventLimit {
			ck.Fail("limit", "must be an integer from 1 to %d", MaxEventLimit)
		}
		q.Limit = n
	}
	if err := ck.Err(); err != nil {
		return q, err
	}
	if raw.Cursor != nil && *raw.Cursor != "" {
		c, ok := s.openCursor(who, q, *raw.Cursor)
		if !ok {
			return q, apperr.Validation(apperr.Detail{Field: "cursor",
				Message: "is not a nextCursor of this list (same key environment, type and customerId)"})
		}
		q.After = &c
	}
	return q, nil
}

// cursorAAD binds a cursor to the tenant and the filters it was made
// for: a cursor of another organization, environment or filter fails to
// open, so it is refused rather than read as a position in this list.
func cursorAAD(who Caller, q EventQuery) []byte {
	return []byte("events-cursor\x00" + who.OrgID + "\x00" + who.Env + "\x00" + q.Type + "\x00" + q.CustomerID)
}

func (s *Events) sealCursor(who Caller, q EventQuery, c EventCursor) string {
	pt := strconv.FormatInt(c.CreatedAt.UnixMicro(), 10) + "." + c.ID
	return base64.RawURLEncoding.EncodeToString(s.sealer.Seal([]byte(pt), cursorAAD(who, q)))
}

func (s *Events) openCursor(who Caller, q EventQuery, cursor string) (EventCursor, bool) {
	sealed, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(sealed) == 0 {
		return EventCursor{}, false
	}
	pt, err := s.sealer.Open(sealed, cursorAAD(who, q))
	if err != nil {
		return EventCursor{}, false
	}
	ts, id, ok := strings.Cut(string(pt), ".")
	micros, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil || id == "" {
		return EventCursor{}, false
	}
	return EventCursor{CreatedAt: time.UnixMicro(micros).UTC(), ID: id}, true
}
