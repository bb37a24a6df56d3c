package load

import (
	"log"
	"os"
	"runtime/pprof"
)

// Profile starts a CPU profile written to path (none when path is empty)
// and returns what stops it. The benches label their goroutines by
// component, so `go tool pprof -tags` splits the profile by service.
func Profile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
