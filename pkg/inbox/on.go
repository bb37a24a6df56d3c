package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
)

// On is the usual consumer: it handles events of the given types (others
// are skipped), decodes their data into T and applies it. Data that does
// not decode, and an invalid-input error from apply, are Permanent: a
// redelivery of the same event cannot fix them.
func On[T any](apply func(ctx context.Context, tx pgx.Tx, e event.Event, data T) error, types ...string) Handler {
	return func(ctx context.Context, tx pgx.Tx, e event.Event) error {
		if !slices.Contains(types, e.Type) {
			return nil
		}
		var data T
		if err := json.Unmarshal(e.Data, &data); err != nil {
			return Permanent(fmt.Errorf("decode %s: %w", e.Type, err))
		}
		err := apply(ctx, tx, e, data)
		if ae, ok := apperr.As(err); ok && ae.Kind == apperr.KindInvalid {
			return Permanent(err)
		}
		return err
	}
}
