// Command customer serves the customer context.
package main

import (
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/customer/app"
)

func main() { platform.Main(app.Service) }
