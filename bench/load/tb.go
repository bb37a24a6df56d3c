package load

import (
	"log"
	"testing"
)

// TB lets a command call the e2e harness's helpers (NewOrg, NewKey, API),
// which take a testing.TB: failures end the command with a log line.
type TB struct{ testing.TB }

// Helper implements testing.TB.
func (TB) Helper() {}

// Name implements testing.TB.
func (TB) Name() string { return "bench" }

// Fatalf implements testing.TB.
func (TB) Fatalf(f string, args ...any) { log.Fatalf(f, args...) }

// Errorf implements testing.TB.
func (TB) Errorf(f string, args ...any) { log.Printf(f, args...) }

// Cleanup implements testing.TB.
func (TB) Cleanup(func()) {}

// Logf implements testing.TB.
func (TB) Logf(f string, args ...any) { log.Printf(f, args...) }
