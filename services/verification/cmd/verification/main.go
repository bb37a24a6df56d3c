// Command verification serves the verification context.
package main

import (
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/verification/app"
)

func main() { platform.Main(app.Service) }
