package httpapi

import (
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// Evidence is what operations read of an address beyond its lender's
// view (GET /admin/v1/tasks/{addressId}/evidence): each visit's audit
// trail and the photo matches behind PHOTO_REUSED, with the other
// address and organization.
type Evidence struct {
	AddressID    string       `json:"addressId"`
	Visits       []VisitTrail `json:"visits"`
	PhotoMatches []PhotoMatch `json:"photoMatches"`
}

// VisitTrail is one visit: where it started and ended (the platform's
// times), the time on site and the positions sampled (the phone's times).
type VisitTrail struct {
	AgentID       string   `json:"agentId"`
	Outcome       string   `json:"outcome"`
	CheckIn       *Fix     `json:"checkIn"`
	Completion    Fix      `json:"completion"`
	SecondsOnSite *float64 `json:"secondsOnSite"`
	Samples       []Fix    `json:"samples"`
}

// Fix is a position and when it was taken.
type Fix struct {
	verification.Point
	At *string `json:"at"`
}

// PhotoMatch is a photo of one address found again at another.
type PhotoMatch struct {
	PhotoID          string `json:"photoId"`
	AddressID        string `json:"addressId"`
	OrgID            string `json:"organizationId"`
	Env              string `json:"environment"`
	MatchedPhotoID   string `json:"matchedPhotoId"`
	MatchedAddressID string `json:"matchedAddressId"`
	MatchedOrgID     string `json:"matchedOrganizationId"`
	MatchedEnv       string `json:"matchedEnvironment"`
	Kind             string `json:"kind"`
	Distance         int    `json:"distance"`
}

func evidenceView(addressID string, ev verification.Evidence) Evidence {
	out := Evidence{AddressID: addressID, Visits: make([]VisitTrail, len(ev.Trails)), PhotoMatches: make([]PhotoMatch, len(ev.Matches))}
	for i, t := range ev.Trails {
		v := VisitTrail{AgentID: t.AgentID, Outcome: t.Outcome, SecondsOnSite: t.SecondsOnSite,
			Completion: Fix{Point: t.Completion.Point, At: envelope.Timestamp(t.Completion.At)}, Samples: make([]Fix, len(t.Samples))}
		if t.CheckIn != nil {
			v.CheckIn = &Fix{Point: t.CheckIn.Point, At: envelope.Timestamp(t.CheckIn.At)}
		}
		for k, s := range t.Samples {
			v.Samples[k] = Fix{Point: s.Point, At: envelope.Timestamp(s.At)}
		}
		out.Visits[i] = v
	}
	for i, m := range ev.Matches {
		out.PhotoMatches[i] = PhotoMatch(m)
	}
	return out
}
