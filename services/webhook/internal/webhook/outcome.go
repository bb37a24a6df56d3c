package webhook

import "time"

// Outcome is a delivery's state after an attempt.
type Outcome struct {
	Status    string
	Scheduled int
	Next      *time.Time
}

// After computes the delivery's state once attempt a (made at now, as a
// manual resend when manual) has ended. A scheduled failure uses up one
// entry of the schedule; a manual one leaves the schedule where it was,
// so a failed resend of an exhausted delivery stays exhausted.
func (d Delivery) After(a Attempt, manual bool, s Schedule, now time.Time) Outcome {
	if a.Succeeded {
		return Outcome{Status: StatusSucceeded, Scheduled: d.Scheduled}
	}
	o := Outcome{Status: d.Status, Scheduled: d.Scheduled}
	if manual && (d.Status == StatusSucceeded || d.Status == StatusExhausted) {
		return o
	}
	if !manual {
		o.Scheduled++
	}
	next, ok := s.Next(now, o.Scheduled)
	if !ok {
		o.Status = StatusExhausted
		return o
	}
	o.Status, o.Next = StatusRetrying, &next
	return o
}
