package verification

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"time"

	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/telemetry"
)

// Sandbox configures the simulation that verifies every sandbox address.
type Sandbox struct {
	// Delay is how long after submission (and after a failed visit) the
	// simulated agent acts.
	Delay time.Duration
	// Photos are the stored mock photos by tag, with their sizes in bytes.
	Photos map[string]int64
}

// Magic values in an address's notes choose the sandbox outcome.
const (
	MagicReject         = "SANDBOX_REJECT"
	MagicRejectResident = "SANDBOX_REJECT_RESIDENT"
	MagicNoAccess       = "SANDBOX_NO_ACCESS"
	MagicStall          = "SANDBOX_STALL"
)

// sandboxAgent is the mock agent of every sandbox visit.
var sandboxAgent = Agent{ID: "agt_sandbox", Name: "Sandbox Agent (Tunde Bakare)"}

// scenario reads the magic value in notes; the longest match wins, since
// SANDBOX_REJECT is a prefix of SANDBOX_REJECT_RESIDENT.
func scenario(notes string) string {
	for _, m := range []string{MagicRejectResident, MagicReject, MagicNoAccess, MagicStall} {
		if strings.Contains(notes, m) {
			return m
		}
	}
	return ""
}

// RunSandbox advances the sandbox jobs that are due, up to limit
// customers, each customer in its own transaction, and reports how many
// jobs it advanced. A crash loses nothing: a job stays due until its
// transaction commits. One customer per transaction also keeps workers
// from deadlocking: an organization's status counters are shared rows,
// and a transaction spanning customers could take them in one order (a
// re-visit's IN_PROGRESS -> VERIFIED, then a first visit's PENDING ->
// IN_PROGRESS) while another worker takes them in the other.
func (s *Service) RunSandbox(ctx context.Context, limit int) (int, error) {
	n := 0
	for range limit {
		found, advanced := false, 0
		err := s.store.Atomic(ctx, func(tx Tx) error {
			found, advanced = false, 0
			now := s.now().UTC()
			due, err := tx.DueSandbox(ctx, now, 1)
			if err != nil || len(due) == 0 {
				return err
			}
			found = true
			ctx := telemetry.WithTraceparent(ctx, due[0].Trace) // the events it emits join the job's trace
			c, err := tx.Case(ctx, due[0].CustomerID)
			if err != nil {
				return err
			}
			for i := range c.Jobs {
				j := &c.Jobs[i]
				if j.Env != EnvTest || j.DueAt == nil || j.DueAt.After(now) || IsFinal(j.Status) {
					continue
				}
				if err := s.simulate(ctx, tx, &c, j, now); err != nil {
					return err
				}
				advanced++
			}
			return nil
		})
		if err != nil || !found {
			return n, err
		}
		n += advanced
	}
	return n, nil
}

// simulate plays one visit of the mock agent: every transition is its own
// event, as a real visit's would be.
func (s *Service) simulate(ctx context.Context, tx Tx, c *Case, j *Job, now time.Time) error {
	step := func(f func() error) error {
		if err := f(); err != nil {
			return err
		}
		return s.changed(ctx, tx, c, j, nil, now)
	}
	magic := scenario(j.Address.Notes)
	if j.Status == Pending {
		if err := step(func() error {
			if magic == MagicStall {
				j.DueAt = nil // stays ASSIGNED: nothing more is due
			}
			return j.Assign(sandboxAgent.ID, now, "sandbox")
		}); err != nil {
			return err
		}
	}
	if magic == MagicStall {
		return nil
	}
	if err := step(func() error { return j.CheckIn(now, "sandbox") }); err != nil {
		return err
	}
	switch {
	case magic == MagicNoAccess && len(j.Attempts) == 0:
		return step(func() error {
			return j.NoAccess("Gate locked; nobody answered. Neighbour says the family is away until evening.", now.Add(s.sandbox.Delay), now, "sandbox")
		})
	case magic == MagicReject:
		return step(func() error {
			return j.Complete(Rejected, Result{Reason: ReasonAddressNotFound, Agent: &sandboxAgent,
				AgentNotes:  "No building with this number on the street; two residents and a shop owner confirmed it.",
				Diagnostics: "Visited once; street walked end to end (sandbox simulation)."}, nil, now, "sandbox")
		})
	case magic == MagicRejectResident:
		return step(func() error {
			return j.Complete(Rejected, Result{Reason: ReasonNotKnown, Agent: &sandboxAgent,
				AgentNotes:  "The building exists; the occupants and two neighbours do not know the customer.",
				Diagnostics: "Visited once; spoke with the occupant and two neighbours (sandbox simulation)."}, nil, now, "sandbox")
		})
	}
	r, photos := s.evidence(*j, now)
	if err := j.Complete(Verified, r, photos, now, "sandbox"); err != nil {
		return err
	}
	return s.changed(ctx, tx, c, j, photos, now)
}

// evidence is realistic mock evidence for a verified sandbox address: a
// point inside its state, notes, building and resident details, and the
// stored mock photos.
func (s *Service) evidence(j Job, now time.Time) (Result, []Photo) {
	lat, lng := pointIn(j.Address.State, j.AddressID)
	accuracy, zero, yes, years := 8.5, 0.0, true, 4
	r := Result{VerifiedAddress: OneLine(j.Address), VerifiedAt: &now, VerifiedLatitude: &lat, VerifiedLongitude: &lng,
		AgentNotes: "Customer confirmed resident; building matches the description. Met the customer's spouse at the gate.",
		Agent:      &sandboxAgent, GPSAccuracyMeters: &accuracy, DistanceFromCheckInMeters: &zero,
		Building:  &Building{Type: "Bungalow", Colour: "Cream", GatePresent: &yes},
		Resident:  &Resident{Name: "Mrs. Okafor", Relationship: "Spouse", YearsAtAddress: &years},
		Neighbour: &Neighbour{Confirmed: true, Notes: "Neighbour at the next gate confirmed the family lives here."}}
	tags := []string{"building_front", "street_view"}
	if j.Address.Landmark != "" {
		tags = append(tags, "landmark")
	}
	var photos []Photo
	for _, tag := range tags {
		size, ok := s.sandbox.Photos[tag]
		if !ok {
			continue
		}
		// Taken during the simulated visit, which happens all at once.
		photos = append(photos, Photo{ID: ids.New("pho"), Tag: tag, ObjectKey: SandboxPhotoKey(tag), ContentType: "image/jpeg",
			Size: size, CapturedAt: now, CreatedAt: now})
	}
	return r, photos
}

// SandboxPhotoKey is where the mock photo of tag is stored.
func SandboxPhotoKey(tag string) string { return "sandbox/" + tag + ".jpg" }

// OneLine renders an address on one line.
func OneLine(a Address) string {
	var parts []string
	street := strings.TrimSpace(a.StreetNumber + " " + a.StreetName)
	for _, p := range []string{street, a.City, a.LGA, a.State, a.Country} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

// pointIn is a point near the centre of state (a Nigerian state or the
// FCT), offset by up to about 2 km in a direction fixed by seed.
func pointIn(state, seed string) (float64, float64) {
	c, ok := stateCentres[normalState(state)]
	if !ok {
		c = [2]float64{9.0820, 8.6753} // Nigeria's centre
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(seed))
	v := h.Sum32()
	dlat := (float64(v%2000)/1000 - 1) * 0.018
	dlng := (float64((v/2000)%2000)/1000 - 1) * 0.018
	return round6(c[0] + dlat), round6(c[1] + dlng)
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

func normalState(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimSuffix(s, " state")
	switch s {
	case "abuja", "federal capital territory", "fct abuja", "fct - abuja":
		return "fct"
	case "cross-river":
		return "cross river"
	case "akwa-ibom":
		return "akwa ibom"
	}
	return s
}

// stateCentres are approximate centres of the 36 states and the FCT.
var stateCentres = map[string][2]float64{
	"abia": {5.4527, 7.5248}, "adamawa": {9.3265, 12.3984}, "akwa ibom": {5.0077, 7.8497}, "anambra": {6.2209, 6.9370},
	"bauchi": {10.7761, 9.9992}, "bayelsa": {4.7719, 6.0699}, "benue": {7.3369, 8.7404}, "borno": {11.8333, 13.1500},
	"cross river": {5.8702, 8.5988}, "delta": {5.7040, 5.9339}, "ebonyi": {6.2649, 8.0137}, "edo": {6.6342, 5.9304},
	"ekiti": {7.7190, 5.3110}, "enugu": {6.5364, 7.4356}, "fct": {8.8941, 7.1860}, "gombe": {10.3638, 11.1928},
	"imo": {5.5720, 7.0588}, "jigawa": {12.2280, 9.5616}, "kaduna": {10.3764, 7.7095}, "kano": {11.7471, 8.5247},
	"katsina": {12.3797, 7.6306}, "kebbi": {11.4942, 4.2333}, "kogi": {7.7337, 6.6906}, "kwara": {8.9669, 4.3874},
	"lagos": {6.5244, 3.3792}, "nasarawa": {8.4998, 8.1997}, "niger": {9.9309, 5.5983}, "ogun": {6.9980, 3.4737},
	"ondo": {6.9149, 5.1478}, "osun": {7.5629, 4.5200}, "oyo": {8.1574, 3.6147}, "plateau": {9.2182, 9.5179},
	"rivers": {4.8396, 6.9112}, "sokoto": {13.0059, 5.2476}, "taraba": {7.9994, 10.7740}, "yobe": {12.2939, 11.4390},
	"zamfara": {12.1222, 6.2236},
}
