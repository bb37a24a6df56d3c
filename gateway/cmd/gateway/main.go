// Command gateway is the public edge of the KYC platform.
package main

import (
	"github.com/kycfield/kyc/gateway/app"
	"github.com/kycfield/kyc/pkg/platform"
)

func main() { platform.Main(app.Service) }
