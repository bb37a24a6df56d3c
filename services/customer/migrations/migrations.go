// Package migrations embeds the customer schema.
package migrations

import (
	"embed"

	"github.com/kycfield/kyc/pkg/pgdb"
)

//go:embed *.sql
var files embed.FS

// Set is the service's migration set.
func Set() pgdb.Migration {
	return pgdb.Migration{VersionTable: "schema_version", Files: files,
		Steps: map[string]pgdb.Step{"backfill_identity_keys": backfillIdentityKeys}}
}
