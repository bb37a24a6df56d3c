package main

import (
	"os"
	"strconv"
	"strings"
)

// ticksPerSecond is Linux's USER_HZ, the unit of /proc/<pid>/stat times
// (100 on every mainstream build).
const ticksPerSecond = 100

// groups names the processes the platform runs on, by command name.
var groups = map[string]string{
	"postgres":     "postgres",
	"devkafka":     "kafka",
	"redis-server": "redis",
	"minio":        "minio",
}

// proc is one process's CPU so far.
type proc struct {
	group string
	ticks int64
}

// sampleCPU reads the CPU time of every process on the machine: this one
// (every service and the gateway), the stores, and everything else.
func sampleCPU() map[int]proc {
	self := os.Getpid()
	out := map[int]proc{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ... utime stime: comm may hold spaces, so
		// split after its closing parenthesis.
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		comm := s[open+1 : close]
		f := strings.Fields(s[close+1:])
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		g := groups[comm]
		switch {
		case pid == self:
			g = "platform"
		case g == "":
			g = "other"
		}
		out[pid] = proc{g, ut + st}
	}
	return out
}

// diff is the CPU seconds each group spent between two samples; a process
// that started in between counts whole, one that ended is lost (the
// platform's and the stores' processes live through a burst).
func diff(after, before map[int]proc) map[string]float64 {
	out := map[string]float64{}
	for pid, a := range after {
		t := a.ticks
		if b, ok := before[pid]; ok && b.group == a.group {
			t -= b.ticks
		}
		out[a.group] += float64(t) / ticksPerSecond
	}
	return out
}
