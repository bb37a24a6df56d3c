package report

import (
	"context"
	"errors"
	"sync"
)

// Evidence fetches the agents' photos (from the verification context,
// which owns them) as small upright JPEGs ready to print.
type Evidence interface {
	// Thumbnail returns ErrPhotoUnavailable (wrapped) for a photo that is
	// gone or unreadable; any other error means "ask again later".
	Thumbnail(ctx context.Context, orgID, env, customerID, photoID string) ([]byte, error)
}

// ErrPhotoUnavailable marks a photo the report shows as unavailable
// rather than waiting for it.
var ErrPhotoUnavailable = errors.New("photo unavailable")

// fetchers bounds the photos fetched at once for one report.
const fetchers = 4

// thumbnails fetches every photo of o, a few at a time: a map from photo
// id to JPEG (absent when unavailable), or the first error that calls for
// a retry.
func (s *Service) thumbnails(ctx context.Context, orgID, env string, o Outcome) (map[string][]byte, error) {
	out := map[string][]byte{}
	if s.evidence == nil {
		return out, nil
	}
	var photoIDs []string
	for _, a := range o.Addresses {
		if a.VerificationData != nil {
			for _, p := range a.VerificationData.Photos {
				photoIDs = append(photoIDs, p.ID)
			}
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var first error
	sem := make(chan struct{}, fetchers)
	var wg sync.WaitGroup
	for _, id := range photoIDs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			b, err := s.evidence.Thumbnail(ctx, orgID, env, o.CustomerID, id)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				out[id] = b
			case !errors.Is(err, ErrPhotoUnavailable) && first == nil:
				first = err
				cancel()
			}
		})
	}
	wg.Wait()
	return out, first
}
