// Command reporting serves the reporting context.
package main

import (
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/reporting/app"
)

func main() { platform.Main(app.Service) }
