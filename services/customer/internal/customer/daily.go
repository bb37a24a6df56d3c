package customer

import (
	"context"
	"strconv"
	"time"

	"github.com/kycfield/kyc/pkg/apperr"
)

// Day is one UTC day of results: the customers that reached VERIFIED or
// REJECTED that day and hold that status now (deleted ones not counted).
type Day struct {
	Date     string `json:"date"`
	Verified int64  `json:"verified"`
	Rejected int64  `json:"rejected"`
}

// MaxDailyDays bounds the series.
const MaxDailyDays = 90

// ParseDays reads the days parameter: 1-90, 30 when absent.
func ParseDays(raw *string) (int, error) {
	if raw == nil {
		return 30, nil
	}
	n, err := strconv.Atoi(*raw)
	if err != nil || n < 1 || n > MaxDailyDays {
		return 0, apperr.Validation(apperr.Detail{Field: "days", Message: "must be a whole number from 1 to 90"})
	}
	return n, nil
}

// DailyResults returns the last days UTC days of results, oldest first,
// today included, a day without results included as zeros.
func (s *Service) DailyResults(ctx context.Context, who Caller, days int) ([]Day, error) {
	now := s.now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	from := today.AddDate(0, 0, -(days - 1))
	counts, err := s.store.DailyResults(ctx, who.OrgID, who.Env, from)
	if err != nil {
		return nil, err
	}
	out := make([]Day, days)
	for i := range out {
		d := from.AddDate(0, 0, i).Format(time.DateOnly)
		c := counts[d]
		out[i] = Day{Date: d, Verified: c[0], Rejected: c[1]}
	}
	return out, nil
}
