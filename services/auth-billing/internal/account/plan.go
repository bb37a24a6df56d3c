// Package account holds organizations, their plan, API keys, dashboard
// users and sessions: who may call the platform and with what limits.
package account

import (
	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/apperr"
)

// Plan is one row of the spec's plan table. Money is in USD cents.
type Plan struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	BaseFeeCents   int64  `json:"baseFeeCents"`
	UnitPriceCents int64  `json:"unitPriceCents"`
	// DailyRequests is the per-organization request quota per UTC day
	// (both environments together); 0 means no cap.
	DailyRequests int `json:"dailyRequests"`
	// TestRecordLimit caps live (not deleted) sandbox customers; 0 means
	// unlimited.
	TestRecordLimit int  `json:"testRecordLimit"`
	LiveAccess      bool `json:"liveAccess"`
	WhiteLabel      bool `json:"whiteLabel"`
}

// Plan ids.
const (
	PlanDeveloper  = "developer"
	PlanGrowth     = "growth"
	PlanEnterprise = "enterprise"
)

// Plans is the catalogue, exactly as the spec's table states it. Growth
// states no record limit, so it has none.
var Plans = map[string]Plan{
	PlanDeveloper:  {ID: PlanDeveloper, Name: "Developer", DailyRequests: 100, TestRecordLimit: 50},
	PlanGrowth:     {ID: PlanGrowth, Name: "Growth", BaseFeeCents: 50000, UnitPriceCents: 200, DailyRequests: 10000, LiveAccess: true},
	PlanEnterprise: {ID: PlanEnterprise, Name: "Enterprise", BaseFeeCents: 250000, UnitPriceCents: 150, LiveAccess: true, WhiteLabel: true},
}

// LookupPlan returns the plan with id or a validation error.
func LookupPlan(id string) (Plan, error) {
	p, ok := Plans[id]
	if !ok {
		return Plan{}, apperr.Validation(apperr.Detail{Field: "plan", Message: "must be one of developer, growth, enterprise"})
	}
	return p, nil
}

// Error codes of this context.
const (
	CodePlanUpgradeRequired = apikey.CodePlanUpgradeRequired // shared with the gateway
	CodeKeyRevoked          = "KEY_ALREADY_REVOKED"
	CodeEmailTaken          = "EMAIL_TAKEN"
	CodeInvalidCredentials  = "INVALID_CREDENTIALS"
	CodeTooManyAttempts     = "TOO_MANY_ATTEMPTS"
	CodeCSRF                = apikey.CodeCSRF // shared with the gateway
	CodeCrossOrigin         = "CROSS_ORIGIN_FORBIDDEN"
	CodeSessionRequired     = apikey.CodeSessionRequired // shared with the gateway
)

// ErrPlanUpgradeRequired refuses live access on the Developer plan.
var ErrPlanUpgradeRequired = apperr.New(apperr.KindForbidden, CodePlanUpgradeRequired,
	"Live (production) access requires the Growth or Enterprise plan; upgrade from the dashboard")
