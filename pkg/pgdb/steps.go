package pgdb

import (
	"context"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"
)

// Step is a migration written in Go. It runs outside a transaction, on
// the migrating connection, so that it can work in batches that each
// commit (a backfill of millions of rows must not hold one transaction
// and its locks for minutes); it must therefore be safe to run again
// from the start after a failure, as the version only moves once it has
// returned nil.
type Step func(ctx context.Context, conn *pgx.Conn) error

// goStep matches the line that makes a numbered migration file the
// placeholder of a Step: "SELECT 'pgdb: go <name>';" (a statement, as
// tern refuses a file of comments only; it never runs). The file keeps
// the step's place in the sequence and says, in comments, what it does.
var goStep = regexp.MustCompile(`(?m)^SELECT 'pgdb: go ([A-Za-z0-9_]+)';$`)

// bindSteps replaces each placeholder migration with its Step; a
// placeholder without one, or a Step without a placeholder, is an error
// (a typo must not skip a backfill silently).
func bindSteps(m *migrate.Migrator, steps map[string]Step) error {
	used := map[string]bool{}
	for _, mg := range m.Migrations {
		match := goStep.FindStringSubmatch(mg.UpSQL)
		if match == nil {
			continue
		}
		step, ok := steps[match[1]]
		if !ok {
			return fmt.Errorf("migration %d (%s) names Go step %q, which is not registered", mg.Sequence, mg.Name, match[1])
		}
		mg.UpSQL, mg.UpFunc, mg.DisableFuncTx = "", migrate.MigrationFunc(step), true
		used[match[1]] = true
	}
	for name := range steps {
		if !used[name] {
			return fmt.Errorf("step %q (Go) has no migration file naming it", name)
		}
	}
	return nil
}
