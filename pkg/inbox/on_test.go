package inbox

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
)

func TestOn(t *testing.T) {
	type data struct{ CustomerID string }
	var got []string
	h := On(func(_ context.Context, _ pgx.Tx, _ event.Event, d data) error {
		got = append(got, d.CustomerID)
		switch d.CustomerID {
		case "invalid":
			return apperr.Validation(apperr.Detail{Field: "customerId", Message: "is malformed"})
		case "down":
			return errors.New("connection refused")
		}
		return nil
	}, "report.generated")
	cases := []struct {
		name, typ, data string
		permanent, fail bool
	}{
		{"applied", "report.generated", `{"CustomerID":"cus_1"}`, false, false},
		{"another type is skipped", "customer.created", `not even JSON`, false, false},
		{"undecodable data cannot be retried into shape", "report.generated", `{"CustomerID":`, true, true},
		{"invalid input is permanent", "report.generated", `{"CustomerID":"invalid"}`, true, true},
		{"other failures are retried", "report.generated", `{"CustomerID":"down"}`, false, true},
	}
	for _, c := range cases {
		err := h(context.Background(), nil, event.Event{Type: c.typ, Data: []byte(c.data)})
		if (err != nil) != c.fail || IsPermanent(err) != c.permanent {
			t.Errorf("%s: %v (permanent %v)", c.name, err, IsPermanent(err))
		}
	}
	if len(got) != 3 || got[0] != "cus_1" {
		t.Fatalf("applied %v", got)
	}
}
