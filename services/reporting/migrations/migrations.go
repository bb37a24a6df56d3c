// Package migrations embeds the reporting schema: numbered, forward-only SQL
// files (001_*.sql, 002_*.sql, ...) applied by the binary at start, as in
// services/customer/migrations. Never edit a file once it has shipped; add
// the next number.
package migrations

import (
	"embed"

	"github.com/kycfield/kyc/pkg/pgdb"
)

//go:embed *.sql
var files embed.FS

// Set is the service's migration set.
func Set() pgdb.Migration { return pgdb.Migration{VersionTable: "schema_version", Files: files} }
