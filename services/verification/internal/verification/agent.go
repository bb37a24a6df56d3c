package verification

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
)

// FieldAgent is a person who visits addresses, managed by operations.
type FieldAgent struct {
	ID, Name, Phone string
	// States and LGAs are the areas the agent covers; an address is
	// offered to an agent covering its state, one covering its LGA first.
	States, LGAs []string
	Active       bool
	// OpenTasks counts the agent's ASSIGNED and IN_PROGRESS jobs.
	OpenTasks int
	CreatedAt time.Time
	UpdatedAt time.Time
	// LastSeen is the agent's latest API call, sign-in or check-in, to
	// the minute (nil before any).
	LastSeen *time.Time
}

// Covers reports whether the agent works in state, and in lga too.
func (a FieldAgent) Covers(state, lga string) (inState, inLGA bool) {
	inState = slices.ContainsFunc(a.States, func(x string) bool { return sameState(x, state) })
	inLGA = inState && strings.TrimSpace(lga) != "" && slices.ContainsFunc(a.LGAs, func(x string) bool { return sameLGA(state, x, lga) })
	return inState, inLGA
}

// AgentInput is what operations say about an agent.
type AgentInput struct {
	Name, Phone  string
	States, LGAs []string
}

// CodeInvalidCode refuses a sign-in with an unknown phone or a wrong,
// used or expired code (which one is not said).
const CodeInvalidCode = "INVALID_CODE"

// ErrAgentNotFound is answered for unknown agent ids.
var ErrAgentNotFound = apperr.NotFound("Agent")

func (in AgentInput) check() (AgentInput, error) {
	var d []apperr.Detail
	in.Name = strings.Join(strings.Fields(in.Name), " ")
	if n := utf8.RuneCountInString(in.Name); n < 2 || n > 100 {
		d = append(d, apperr.Detail{Field: "name", Message: "must be 2-100 characters"})
	}
	phone, ok := normalPhone(in.Phone)
	if !ok {
		d = append(d, apperr.Detail{Field: "phone", Message: "must be a Nigerian mobile number: +234 and 10 digits starting with 7, 8 or 9, or the local form 0 and the same 10 digits"})
	}
	in.Phone = phone
	if len(in.States) == 0 {
		d = append(d, apperr.Detail{Field: "states", Message: "must name at least one state the agent covers"})
	}
	for i, s := range in.States {
		name, known := places().NormalizeState(s)
		if !known {
			d = append(d, apperr.Detail{Field: fmt.Sprintf("states[%d]", i), Message: "is not a Nigerian state or the FCT",
				Suggestions: places().SuggestStates(s)})
			continue
		}
		in.States[i] = name
	}
	for i, l := range in.LGAs {
		if name, ok := lgaOf(in.States, l); ok {
			in.LGAs[i] = name
		} else {
			d = append(d, apperr.Detail{Field: fmt.Sprintf("lgas[%d]", i), Message: "is not a local government area of the states the agent covers"})
		}
	}
	if len(d) > 0 {
		return in, apperr.Validation(d...)
	}
	return in, nil
}

// lgaOf is name as an LGA of one of states, in its official spelling.
func lgaOf(states []string, name string) (string, bool) {
	for _, s := range states {
		if n, ok := places().NormalizeLGA(s, name); ok {
			return n, true
		}
	}
	return "", false
}

// CreateAgent records a new active agent and offers it the waiting work
// in its area.
func (s *Service) CreateAgent(ctx context.Context, in AgentInput) (FieldAgent, error) {
	in, err := in.check()
	if err != nil {
		return FieldAgent{}, err
	}
	now := s.now().UTC()
	a := FieldAgent{ID: ids.New("agt"), Name: in.Name, Phone: in.Phone, States: in.States, LGAs: in.LGAs, Active: true, CreatedAt: now, UpdatedAt: now}
	err = s.store.Atomic(ctx, func(tx Tx) error {
		if err := tx.InsertAgent(ctx, a); err != nil {
			return err
		}
		if err := tx.Audit(ctx, "agent.create", a.ID, "", map[string]any{"name": a.Name, "states": a.States, "lgas": orNone(a.LGAs)}); err != nil {
			return err
		}
		return s.assignWaitingIn(ctx, tx, a.States, now)
	})
	if err != nil {
		return a, err
	}
	return s.agent(ctx, a.ID) // with the tasks it took at once
}

// Agents lists every agent.
func (s *Service) Agents(ctx context.Context) ([]FieldAgent, error) { return s.store.Agents(ctx) }

// SetAgentActive disables an agent (its sessions end; its open tasks go
// back to the queue and to other agents) or enables it again.
func (s *Service) SetAgentActive(ctx context.Context, id string, active bool) (FieldAgent, error) {
	var a FieldAgent
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		if a, err = tx.Agent(ctx, id); err != nil {
			return err
		}
		now := s.now().UTC()
		a.Active, a.UpdatedAt = active, now
		if err := tx.UpdateAgent(ctx, a); err != nil {
			return err
		}
		action := "agent.enable"
		if !active {
			action = "agent.disable"
		}
		if err := tx.Audit(ctx, action, a.ID, "", nil); err != nil {
			return err
		}
		if !active {
			if err := tx.EndSessions(ctx, a.ID); err != nil {
				return err
			}
			if err := s.release(ctx, tx, a.ID, now); err != nil {
				return err
			}
		}
		return s.assignWaiting(ctx, tx, now)
	})
	return a, err
}

// CodeTTL is how long a one-time sign-in code works.
const CodeTTL = 15 * time.Minute

// IssueCode makes a one-time sign-in code that operations hand to the
// agent (in person or by phone); only its hash is kept.
func (s *Service) IssueCode(ctx context.Context, agentID string) (string, time.Time, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", time.Time{}, err
	}
	code := fmt.Sprintf("%06d", n.Int64())
	expires := s.now().UTC().Add(CodeTTL)
	err = s.store.Atomic(ctx, func(tx Tx) error {
		a, err := tx.Agent(ctx, agentID)
		if err != nil {
			return err
		}
		if !a.Active {
			return apperr.New(apperr.KindConflict, CodeAgentDisabled, "The agent is disabled; enable it first")
		}
		if err := tx.Audit(ctx, "agent.code", a.ID, "", nil); err != nil {
			return err
		}
		return tx.PutCode(ctx, a.ID, digest(code), expires)
	})
	return code, expires, err
}

// CodeAgentDisabled refuses what a disabled agent may not do.
const CodeAgentDisabled = "AGENT_DISABLED"

// SessionTTL is how long an agent stays signed in.
const SessionTTL = 30 * 24 * time.Hour

// SignIn exchanges an agent's phone and one-time code for a session
// token, which is shown only here. The attempt is counted against the
// client address and the (phone, address) pair before anything else
// (signin.go).
func (s *Service) SignIn(ctx context.Context, phone, code, clientIP string) (string, FieldAgent, time.Time, error) {
	bad := apperr.New(apperr.KindUnauthorized, CodeInvalidCode, "Unknown phone number, or a wrong, used or expired code")
	now := s.now().UTC()
	p, ok := normalPhone(phone)
	if !ok {
		p = phone // still counted, under what was sent
	}
	if err := s.reserveSignIn(ctx, p, clientIP, now); err != nil {
		return "", FieldAgent{}, time.Time{}, err
	}
	if !ok || len(code) != 6 {
		return "", FieldAgent{}, time.Time{}, bad
	}
	var token string
	var a FieldAgent
	failed := false
	expires := now.Add(SessionTTL)
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		a, err = tx.AgentByPhone(ctx, p)
		if apperr.IsCode(err, apperr.CodeNotFound) || (err == nil && !a.Active) {
			failed = true
			return nil
		}
		if err != nil {
			return err
		}
		// A wrong code counts as a try, so this transaction commits either way.
		ok, err := tx.UseCode(ctx, a.ID, digest(code), now, maxCodeTries)
		if err != nil || !ok {
			failed = !ok
			return err
		}
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		token = "agt_tok_" + base64.RawURLEncoding.EncodeToString(b[:])
		return tx.PutSession(ctx, digest(token), a.ID, expires)
	})
	if err == nil && failed {
		return "", FieldAgent{}, time.Time{}, bad
	}
	if err == nil {
		// The session exists: a failure to give the attempt back only
		// leaves it counted, so it does not fail the sign-in.
		address, pair := signInKeys(p, clientIP)
		_ = s.store.SignedIn(ctx, address, pair)
		_ = s.store.TouchAgent(ctx, a.ID, now)
	}
	return token, a, expires, err
}

// Authenticate returns the active agent a session token belongs to.
func (s *Service) Authenticate(ctx context.Context, token string) (FieldAgent, error) {
	if !strings.HasPrefix(token, "agt_tok_") {
		return FieldAgent{}, ErrNoSession
	}
	now := s.now().UTC()
	a, err := s.store.AgentBySession(ctx, digest(token), now)
	if err != nil {
		return a, err
	}
	// Last seen is for the console; failing to note it must not fail the
	// agent's call.
	_ = s.store.TouchAgent(ctx, a.ID, now)
	return a, nil
}

// ErrNoSession is answered for a missing, unknown, expired or revoked
// agent token.
var ErrNoSession = apperr.New(apperr.KindUnauthorized, apperr.CodeUnauthorized, "Missing or invalid agent session; sign in again")

// SignOut ends a session.
func (s *Service) SignOut(ctx context.Context, token string) error {
	return s.store.Atomic(ctx, func(tx Tx) error { return tx.EndSession(ctx, digest(token)) })
}

func digest(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}
