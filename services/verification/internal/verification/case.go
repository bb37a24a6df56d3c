package verification

import (
	"context"
	"time"
)

// Case is a customer as this context needs it, kept from the customer
// context's events, with the jobs of its addresses.
type Case struct {
	CustomerID, OrgID, Env string
	FirstName, LastName    string
	Phone, LoanID          string
	LoanType               string
	// Documents are the customer's documents as the customer context
	// shows them (JSON array), passed through to the status read.
	Documents        []byte
	Status           string
	VerificationDate *time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
	DeletedAt        *time.Time
	Jobs             []Job
}

// Restatus recomputes the case's status from its jobs and reports the
// previous one.
func (c *Case) Restatus(at time.Time) (before string) {
	before = c.Status
	statuses := make([]string, len(c.Jobs))
	for i, j := range c.Jobs {
		statuses[i] = j.Status
	}
	c.Status, c.UpdatedAt = OverallStatus(statuses), at
	switch {
	case IsCaseFinal(c.Status) && !IsCaseFinal(before):
		c.VerificationDate = &at
	case !IsCaseFinal(c.Status):
		c.VerificationDate = nil
	}
	return before
}

// Caller is who reads, as established by the gateway.
type Caller struct {
	OrgID, Env string
	// Context is set when another context calls (reporting, for the
	// photos of a report it renders), not a lender.
	Context bool
}

// Environments.
const (
	EnvTest = "test"
	EnvLive = "live"
)

// Stats are a caller's figures: customers (live cases) by status.
type Stats struct {
	Total, Pending, InProgress, Verified, Rejected int64
	// AverageTurnaround is from the first submission to a final status,
	// over the cases that reached one (nil before any did).
	AverageTurnaround *time.Duration
}

// Event types this context publishes.
const (
	EventAddressUpdated = "verification.address.updated"
	EventCompleted      = "verification.completed"
	EventRejected       = "verification.rejected"
)

// Change is what happened, published with the change it describes: an
// address transition (Job set), or a case reaching a final status.
type Change struct {
	Type string
	Case Case
	Job  *Job
}

// Store is the persistence port.
type Store interface {
	Atomic(ctx context.Context, fn func(Tx) error) error
	// Case reads a live case with its jobs and their photos, in one
	// snapshot.
	Case(ctx context.Context, orgID, env, customerID string) (Case, error)
	Stats(ctx context.Context, orgID, env string) (Stats, error)
	Photo(ctx context.Context, orgID, env, customerID, photoID string) (Photo, error)
	// PhotoByKey reads the photo an agent stored with an idempotency key.
	PhotoByKey(ctx context.Context, addressID, key string) (Photo, error)
	// Announce records that a photo file is about to be stored under key,
	// so that it is removed later if no photo row ever refers to it (a
	// crash between the two); InsertPhotos withdraws the announcement.
	Announce(ctx context.Context, key string) error
	Agents(ctx context.Context) ([]FieldAgent, error)
	// AgentBySession returns the active agent of an unexpired session.
	AgentBySession(ctx context.Context, tokenHash []byte, now time.Time) (FieldAgent, error)
	// Tasks lists an agent's open jobs, due re-visits first.
	Tasks(ctx context.Context, agentID string) ([]Task, error)
	// TaskStatus is the status of the agent's own job for an address of a
	// live case (ErrTaskNotFound for anyone else's).
	TaskStatus(ctx context.Context, agentID, addressID string) (string, error)
	// Evidence reads an address's visit trails and photo matches, either
	// side (operations).
	Evidence(ctx context.Context, addressID string) (Evidence, error)
	SignInAttempts
	OpsStore
	ReviewReads
}

// Waiting is a live job waiting for an agent.
type Waiting struct{ CustomerID, AddressID string }

// SandboxDue is a customer with sandbox work due; Trace is the trace
// context (W3C traceparent) its earliest due job was created in, which
// the simulated visit continues.
type SandboxDue struct {
	CustomerID string
	Trace      string
}

// Tx is what use cases do inside one transaction.
type Tx interface {
	// Case reads a case with its jobs, locked; deleted ones too.
	Case(ctx context.Context, customerID string) (Case, error)
	// InsertCase reports false (and changes nothing) if it exists.
	InsertCase(ctx context.Context, c Case) (bool, error)
	UpdateCase(ctx context.Context, c Case) error
	// InsertJob reports false (and changes nothing) if it exists.
	InsertJob(ctx context.Context, j Job) (bool, error)
	UpdateJob(ctx context.Context, j Job) error
	InsertPhotos(ctx context.Context, j Job, photos []Photo) error
	// Count moves a live case between status counters: from "" adds it,
	// to "" removes it.
	Count(ctx context.Context, orgID, env, from, to string) error
	// AddTurnaround adds n cases taking d in all (negative to take some
	// out again).
	AddTurnaround(ctx context.Context, orgID, env string, d time.Duration, n int) error
	// DueSandbox locks up to limit open sandbox jobs due by now, skipping
	// ones another worker holds, and returns their customers.
	DueSandbox(ctx context.Context, now time.Time, limit int) ([]SandboxDue, error)
	// WakeSandbox tells the sandbox worker, when the transaction commits,
	// that sandbox work is due now that this transaction leaves undone.
	WakeSandbox(ctx context.Context) error
	Emit(ctx context.Context, ch Change) error
	// SaveOrgSettings stores an organization's settings unless a newer
	// version is already stored; OrgSettings reads them (defaults for an
	// organization never announced).
	SaveOrgSettings(ctx context.Context, o OrgSettings, at time.Time) error
	OrgSettings(ctx context.Context, orgID string) (OrgSettings, error)

	// CustomerOf returns the customer of an address (a job).
	CustomerOf(ctx context.Context, addressID string) (string, error)
	InsertAgent(ctx context.Context, a FieldAgent) error
	UpdateAgent(ctx context.Context, a FieldAgent) error
	Agent(ctx context.Context, id string) (FieldAgent, error)
	AgentByPhone(ctx context.Context, phone string) (FieldAgent, error)
	// ActiveAgents lists active agents with their open task counts.
	ActiveAgents(ctx context.Context) ([]FieldAgent, error)
	// AgentJobs lists an agent's open jobs.
	AgentJobs(ctx context.Context, agentID string) ([]Job, error)
	// WaitingLive lists live PENDING jobs, oldest first.
	WaitingLive(ctx context.Context, limit int) ([]Waiting, error)
	// PutCode replaces the agent's one-time code.
	PutCode(ctx context.Context, agentID string, hash []byte, expires time.Time) error
	// UseCode consumes the agent's code if hash matches, it is unused,
	// unexpired and has had fewer than maxTries wrong tries; a wrong code
	// counts a try.
	UseCode(ctx context.Context, agentID string, hash []byte, now time.Time, maxTries int) (bool, error)
	PutSession(ctx context.Context, tokenHash []byte, agentID string, expires time.Time) error
	EndSession(ctx context.Context, tokenHash []byte) error
	EndSessions(ctx context.Context, agentID string) error
	// Recall reports whether the agent already made a call with key, and
	// its request fingerprint; Remember records one.
	Recall(ctx context.Context, agentID, key string) (fingerprint string, seen bool, err error)
	Remember(ctx context.Context, agentID, key, fingerprint string) error
	// LastFixes returns the agent's latest fix anywhere and its latest
	// at another address than addressID (nil when none).
	LastFixes(ctx context.Context, agentID, addressID string) (last, elsewhere *Fix, err error)
	RecordFix(ctx context.Context, f Fix) error
	// HashCandidates returns stored fingerprints in env that share h's
	// SHA-256 or one of its perceptual hash's bands (an indexed lookup,
	// at most limit); the caller keeps the real matches.
	HashCandidates(ctx context.Context, env string, h PhotoHash, limit int) ([]StoredHash, error)
	// InsertPhotoHash stores a photo's fingerprint and the matches found
	// for it.
	InsertPhotoHash(ctx context.Context, j Job, p Photo, matches []PhotoMatch) error
	InsertTrail(ctx context.Context, t VisitTrail) error
	OpsTx
	// Audit records the caller's action (a staff member's, or the
	// operators' admin token's) in the staff audit log, with the change.
	Audit(ctx context.Context, action, target, orgID string, details map[string]any) error
}
