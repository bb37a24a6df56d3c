package verification

import (
	"context"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// Task is an open job as its agent sees it.
type Task struct {
	Job
	CustomerName, CustomerPhone string
	// PhotoCount counts the job's photos (lists do not load them).
	PhotoCount int
}

// taskOf is a job with what its agent needs of the case.
func taskOf(c Case, j Job) Task {
	return Task{Job: j, CustomerName: c.FirstName + " " + c.LastName, CustomerPhone: c.Phone, PhotoCount: len(j.Photos)}
}

// ErrTaskNotFound is answered for another agent's task too.
var ErrTaskNotFound = apperr.NotFound("Task")

// offer assigns a live PENDING job to the active agent covering its state
// with an LGA match first, then the fewest open tasks; without one it
// stays PENDING until an agent becomes available.
func (s *Service) offer(ctx context.Context, tx Tx, c *Case, j *Job, agents []FieldAgent, now time.Time) error {
	if j.Env != EnvLive || j.Status != Pending {
		return nil
	}
	best := -1
	bestLGA := false
	for i, a := range agents {
		inState, inLGA := a.Covers(j.Address.State, j.Address.LGA)
		if !a.Active || !inState {
			continue
		}
		if best < 0 || (inLGA && !bestLGA) || (inLGA == bestLGA && a.OpenTasks < agents[best].OpenTasks) {
			best, bestLGA = i, inLGA
		}
	}
	if best < 0 {
		return nil
	}
	if err := j.Assign(agents[best].ID, now, "system"); err != nil {
		return err
	}
	agents[best].OpenTasks++
	return s.changed(ctx, tx, c, j, nil, now)
}

// assignWaiting offers every waiting live job to the agents.
func (s *Service) assignWaiting(ctx context.Context, tx Tx, now time.Time) error {
	agents, err := tx.ActiveAgents(ctx)
	if err != nil || len(agents) == 0 {
		return err
	}
	waiting, err := tx.WaitingLive(ctx, 500)
	if err != nil {
		return err
	}
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

// release returns a disabled agent's not-yet-started tasks to the queue.
func (s *Service) release(ctx context.Context, tx Tx, agentID string, now time.Time) error {
	tasks, err := tx.AgentJobs(ctx, agentID)
	if err != nil {
		return err
	}
	for _, t := range tasks {
		if t.Status != Assigned {
			continue // a visit under way stays with its agent until operations reassign it
		}
		c, err := tx.Case(ctx, t.CustomerID)
		if err != nil {
			return err
		}
		for i := range c.Jobs {
			j := &c.Jobs[i]
			if j.AddressID == t.AddressID {
				if err := j.move(Pending, now, "system"); err != nil {
					return err
				}
				j.AgentID = ""
				if err := s.changed(ctx, tx, &c, j, nil, now); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Reassign gives an open job that has not started to another agent
// (operations).
func (s *Service) Reassign(ctx context.Context, addressID, agentID string) (Task, error) {
	var out Task
	err := s.store.Atomic(ctx, func(tx Tx) error {
		a, err := tx.Agent(ctx, agentID)
		if err != nil {
			return err
		}
		if !a.Active {
			return apperr.New(apperr.KindConflict, CodeAgentDisabled, "The agent is disabled; enable it first")
		}
		now := s.now().UTC()
		return s.onJob(ctx, tx, addressID, func(c *Case, j *Job) error {
			if j.Env != EnvLive {
				return apperr.New(apperr.KindConflict, CodeInvalidTransition, "Sandbox addresses are verified by the simulation, not by agents")
			}
			if j.Status != Pending && j.Status != Assigned {
				return j.refuse(Assigned) // a visit under way or a final address keeps its agent
			}
			if j.Status == Assigned {
				if err := j.move(Pending, now, "operations"); err != nil {
					return err
				}
				j.AgentID = ""
				if err := s.changed(ctx, tx, c, j, nil, now); err != nil {
					return err
				}
			}
			if err := j.Assign(a.ID, now, "operations"); err != nil {
				return err
			}
			out = taskOf(*c, *j)
			if err := tx.Audit(ctx, "task.reassign", j.AddressID, j.OrgID, map[string]any{"agentId": a.ID}); err != nil {
				return err
			}
			return s.changed(ctx, tx, c, j, nil, now)
		})
	})
	return out, err
}

// Tasks lists an agent's open tasks, due re-visits first.
func (s *Service) Tasks(ctx context.Context, agent FieldAgent) ([]Task, error) {
	return s.store.Tasks(ctx, agent.ID)
}
