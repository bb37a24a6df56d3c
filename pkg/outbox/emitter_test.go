package outbox_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/outbox"
	"github.com/kycfield/kyc/pkg/pgdb"
	"github.com/kycfield/kyc/pkg/pgtest"
)

// change and tx stand for a service's domain change and its view of a
// transaction.
type change struct{ Customer, Name string }

type tx struct {
	tx pgx.Tx
	s  *pgdb.Store[*tx, change]
}

func (t *tx) save(ctx context.Context, c change) error {
	if _, err := t.tx.Exec(ctx, `INSERT INTO things (name) VALUES ($1)`, c.Name); err != nil {
		return err
	}
	return t.s.Emit(ctx, t.tx, c)
}

func newStore(t *testing.T) *pgdb.Store[*tx, change] {
	pool, _ := pgtest.NewDB(t, outbox.Migration())
	if _, err := pool.Exec(context.Background(), `CREATE TABLE things (name text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	toEvent := func(c change) (event.Event, error) { return event.New("thing.saved", "org_1", "test", c) }
	var s *pgdb.Store[*tx, change]
	s = pgdb.NewStore(pool, func(ptx pgx.Tx) *tx { return &tx{tx: ptx, s: s} },
		outbox.Emitter("things", toEvent, func(c change) string { return c.Customer }))
	return s
}

func count(t *testing.T, s *pgdb.Store[*tx, change], sql string) int {
	t.Helper()
	var n int
	if err := s.Pool().QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestStoreEmitsInTheSameTransaction(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	if err := s.Atomic(ctx, func(x *tx) error { return x.save(ctx, change{"cus_1", "a"}) }); err != nil {
		t.Fatal(err)
	}
	var topic, key, typ string
	if err := s.Pool().QueryRow(ctx, `SELECT topic, msg_key, event_type FROM outbox`).Scan(&topic, &key, &typ); err != nil {
		t.Fatal(err)
	}
	if topic != "things" || key != "cus_1" || typ != "thing.saved" {
		t.Fatalf("outbox row %s %s %s", topic, key, typ)
	}

	// A failure after the emit rolls back the row and its event; the
	// cause comes back as an internal error, a domain error as it is.
	boom := errors.New("boom")
	err := s.Atomic(ctx, func(x *tx) error {
		if err := x.save(ctx, change{"cus_2", "b"}); err != nil {
			return err
		}
		return boom
	})
	if e, ok := apperr.As(err); !ok || e.Kind != apperr.KindInternal || !errors.Is(err, boom) {
		t.Fatalf("want an internal error wrapping boom, got %v", err)
	}
	conflict := apperr.New(apperr.KindConflict, "TAKEN", "taken")
	if err := s.Atomic(ctx, func(*tx) error { return conflict }); err != conflict {
		t.Fatalf("domain error changed: %v", err)
	}
	if n := count(t, s, `SELECT count(*) FROM outbox`) + count(t, s, `SELECT count(*) FROM things`); n != 2 {
		t.Fatalf("%d rows, want the first change's 2", n)
	}

	// A database error goes through the service's translation.
	s.TranslateWith(func(err error) error {
		if _, ok := pgdb.UniqueViolation(err); ok {
			return conflict
		}
		return pgdb.Translate(err)
	})
	if err := s.Atomic(ctx, func(x *tx) error { return x.save(ctx, change{"cus_3", "a"}) }); err != conflict {
		t.Fatalf("want the translated duplicate, got %v", err)
	}
}

func TestStoreWithinAConsumersTransaction(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, s.Pool(), func(ptx pgx.Tx) error { return s.Within(ptx).save(ctx, change{"cus_1", "a"}) })
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM outbox WHERE msg_key = 'cus_1'`); n != 1 {
		t.Fatalf("%d events", n)
	}
}
