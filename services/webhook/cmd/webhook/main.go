// Command webhook serves the webhook context.
package main

import (
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/webhook/app"
)

func main() { platform.Main(app.Service) }
