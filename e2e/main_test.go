package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/kycfield/kyc/e2e/harness"
)

// P is the platform every test of this package drives through the
// gateway; tests isolate themselves by creating their own organizations.
var P *harness.Platform

func TestMain(m *testing.M) {
	p, err := harness.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: cannot start the platform:", err)
		os.Exit(1)
	}
	P = p
	code := m.Run()
	p.Stop()
	os.Exit(code)
}
