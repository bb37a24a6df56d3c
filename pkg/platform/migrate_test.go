package platform_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/platform"
)

// A migration job (the service's image run with -migrate-only) migrates
// the service's database, the kit's tables included, and exits without
// setting anything else up or serving.
func TestMigrateOnlyMigratesAndExits(t *testing.T) {
	dbURL := pgtest.CreateDB(t)
	own := pgdb.Migration{VersionTable: "schema_version", Files: fstest.MapFS{
		"001_widgets.sql": {Data: []byte("CREATE TABLE widgets (id int PRIMARY KEY);")},
	}}
	opts := platform.Options{Name: "widgets", DatabaseURL: dbURL, Migrations: own}
	setUp := false
	err := platform.Run(platform.MigrateOnly(context.Background()), logging.Discard(), opts, "127.0.0.1:0", nil,
		func(context.Context, *platform.Base) error { setUp = true; return nil })
	if err != nil || setUp {
		t.Fatalf("migrate-only: %v, set up %v", err, setUp)
	}
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, table := range []string{"widgets", "outbox"} {
		var n int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Errorf("table %s after migrate-only: %v", table, err)
		}
	}
}
