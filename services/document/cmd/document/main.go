// Command document serves the document context.
package main

import (
	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/services/document/app"
)

func main() { platform.Main(app.Service) }
