// Command auth-billing serves organizations, API keys, dashboard accounts,
// plans and usage billing.
package main

import (
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/auth-billing/app"
)

func main() { platform.Main(app.Service) }
