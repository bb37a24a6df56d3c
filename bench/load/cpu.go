package load

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ticksPerSecond is Linux's USER_HZ, the unit of /proc/<pid>/stat times
// (100 on every mainstream build).
const ticksPerSecond = 100

// groups names the processes the platform runs on, by the start of their
// command name (the kernel keeps 15 bytes of it: the local MinIO is
// "minio-v0.0.0-20...").
var groups = []struct{ prefix, group string }{
	{"postgres", "postgres"},
	{"devkafka", "kafka"},
	{"redis-server", "redis"},
	{"minio", "minio"},
}

// groupOf is the group of a process by its command name, "" if none.
func groupOf(comm string) string {
	for _, g := range groups {
		if strings.HasPrefix(comm, g.prefix) {
			return g.group
		}
	}
	return ""
}

// CPUSample is the CPU time of every process on the machine at one
// moment, by pid (SampleCPU).
type CPUSample map[int]proc

// proc is one process's CPU so far.
type proc struct {
	group string
	ticks int64
}

// SampleCPU reads the CPU time of every process on the machine: this one
// ("platform": every service and the gateway when the bench runs them
// in-process), the stores ("postgres", "kafka", "redis", "minio"), and
// everything else ("other": the machine is shared). With databases, only
// the PostgreSQL backends serving one of them count as "postgres" (their
// process title names the database); the server's own processes and other
// sessions' backends are "postgres-shared", since other work on the
// machine uses the same server.
func SampleCPU(databases ...string) CPUSample {
	self := os.Getpid()
	out := CPUSample{}
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
		g := groupOf(comm)
		if g == "postgres" && len(databases) > 0 && !servesOneOf(e.Name(), databases) {
			g = "postgres-shared"
		}
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

// CPUSince is the CPU seconds each group spent between two samples; a
// process that started in between counts whole, one that ended is lost
// (the platform's and the stores' processes live through a run).
func CPUSince(after, before CPUSample) map[string]float64 {
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

// ByGroup prints figures by group (CPU seconds by process, transactions
// by service), largest first ("platform 7.9, postgres 3.1, ..."), each
// scaled by scale and printed with format (e.g. 1 and "%.1f" for seconds,
// 1000/n and "%.2f" for ms per customer).
func ByGroup(cpu map[string]float64, scale float64, format string) string {
	keys := make([]string, 0, len(cpu))
	for k := range cpu {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return cpu[keys[i]] > cpu[keys[j]] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s "+format, k, cpu[k]*scale)
	}
	return strings.Join(parts, ", ")
}

// servesOneOf reports whether the PostgreSQL process pid is a backend of
// one of databases: its title is "postgres: 15/main: user database
// host(port) state".
func servesOneOf(pid string, databases []string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/cmdline")
	if err != nil {
		return false
	}
	f := strings.Fields(strings.ReplaceAll(string(b), "\x00", " "))
	for i, w := range f {
		if i >= 3 && i < 5 && slices.Contains(databases, w) {
			return true
		}
	}
	return false
}

// DatabaseNames are the names of the databases behind PostgreSQL URLs
// ("postgres://host/name?..." -> "name"), for SampleCPU.
func DatabaseNames(urls map[string]string) []string {
	var out []string
	for _, u := range urls {
		if p, err := url.Parse(u); err == nil && len(p.Path) > 1 {
			out = append(out, p.Path[1:])
		}
	}
	return out
}

// Transactions is how many transactions each service's database has
// committed or rolled back so far (pg_stat_database), by service: the
// difference over a run, per customer, says where PostgreSQL's CPU goes.
// A database it cannot read counts 0.
func Transactions(urls map[string]string) map[string]float64 {
	out := map[string]float64{}
	for svc, u := range urls {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if c, err := pgx.Connect(ctx, u); err == nil {
			var n int64
			if c.QueryRow(ctx, `SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()`).Scan(&n) == nil {
				out[svc] = float64(n)
			}
			c.Close(ctx)
		}
		cancel()
	}
	return out
}
