package verification

import (
	"context"
	"time"
)

// Agents as the operations console manages them: edits, this week's
// figures and when each was last seen.

// AgentWeek is an agent's figures over the visits it ended this week.
type AgentWeek struct {
	Visits int
	// MedianOnSite is the median time from check-in to the visit's end
	// (nil without a timed visit).
	MedianOnSite *time.Duration
	// Flagged counts final visits whose result carries a warning or
	// critical flag; Rejected final visits the agent rejected (not for
	// lack of access); NoAccess visits that found no one.
	Flagged, Rejected, NoAccess int
}

// AgentFigures is an agent with its week.
type AgentFigures struct {
	FieldAgent
	Week AgentWeek
}

// WeekStart is Monday 00:00 in Lagos of at's week.
func WeekStart(at time.Time) time.Time {
	l := at.In(Lagos)
	back := (int(l.Weekday()) + 6) % 7 // days since Monday
	return time.Date(l.Year(), l.Month(), l.Day()-back, 0, 0, 0, 0, Lagos).UTC()
}

// AgentsWithFigures lists every agent with this week's figures.
func (s *Service) AgentsWithFigures(ctx context.Context) ([]AgentFigures, time.Time, error) {
	since := WeekStart(s.now().UTC())
	agents, err := s.store.Agents(ctx)
	if err != nil {
		return nil, since, err
	}
	weeks, err := s.store.AgentWeeks(ctx, since)
	if err != nil {
		return nil, since, err
	}
	out := make([]AgentFigures, len(agents))
	for i, a := range agents {
		out[i] = AgentFigures{FieldAgent: a, Week: weeks[a.ID]}
	}
	return out, since, nil
}

// AgentPatch is an edit of an agent; nil fields are left as they are.
type AgentPatch struct {
	Name, Phone  *string
	States, LGAs *[]string
}

// UpdateAgent edits an agent's name, phone or coverage; a coverage that
// now reaches waiting addresses gets them at once.
func (s *Service) UpdateAgent(ctx context.Context, id string, p AgentPatch) (FieldAgent, error) {
	var a FieldAgent
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		if a, err = tx.Agent(ctx, id); err != nil {
			return err
		}
		in := AgentInput{Name: a.Name, Phone: a.Phone, States: a.States, LGAs: a.LGAs}
		if p.Name != nil {
			in.Name = *p.Name
		}
		if p.Phone != nil {
			in.Phone = *p.Phone
		}
		if p.States != nil {
			in.States = *p.States
		}
		if p.LGAs != nil {
			in.LGAs = *p.LGAs
		}
		if in, err = in.check(); err != nil {
			return err
		}
		now := s.now().UTC()
		a.Name, a.Phone, a.States, a.LGAs, a.UpdatedAt = in.Name, in.Phone, in.States, in.LGAs, now
		if err := tx.SaveAgent(ctx, a); err != nil {
			return err
		}
		if err := tx.Audit(ctx, "agent.update", a.ID, "", map[string]any{"name": a.Name, "states": a.States, "lgas": orNone(a.LGAs)}); err != nil {
			return err
		}
		if !a.Active {
			return nil
		}
		return s.assignWaitingIn(ctx, tx, a.States, now)
	})
	if err != nil {
		return a, err
	}
	return s.agent(ctx, id) // with its open tasks after the assignment
}

// assignWaitingIn offers the waiting live jobs in states to the agents:
// what an agent created or widened for an area takes at once.
func (s *Service) assignWaitingIn(ctx context.Context, tx Tx, states []string, now time.Time) error {
	agents, err := tx.ActiveAgents(ctx)
	if err != nil || len(agents) == 0 {
		return err
	}
	waiting, err := tx.WaitingLiveIn(ctx, states, 500)
	if err != nil {
		return err
	}
	return s.offerEach(ctx, tx, waiting, agents, now)
}

// offerEach offers each waiting job to the agents.
func (s *Service) offerEach(ctx context.Context, tx Tx, waiting []Waiting, agents []FieldAgent, now time.Time) error {
	for _, w := range waiting {
		c, err := tx.Case(ctx, w.CustomerID)
		if err != nil {
			return err
		}
		for i := range c.Jobs {
			if c.Jobs[i].AddressID == w.AddressID {
				if err := s.offer(ctx, tx, &c, &c.Jobs[i], agents, now); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func orNone(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
