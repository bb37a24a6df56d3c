package events

// Organization event types this context reads (auth-billing's).
const (
	TypeOrganizationCreated     = "organization.created"
	TypeOrganizationPlanChanged = "organization.plan_changed"
)

// orgChange is the part of auth-billing's organization events this
// context reads: the name and the plan, ordered by version.
type orgChange struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Version int64  `json:"version"`
	Plan    struct {
		ID string `json:"id"`
	} `json:"plan"`
}
