package verification

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
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
	// Immediate, with Delay 0, makes the simulated agent act in the
	// transaction that opens the jobs (the customer event's), instead of
	// the worker's own after it: one transaction per sandbox customer
	// instead of three or more (the worker's, and each wake's look for
	// more work), the same events in the same order. The worker still
	// runs what falls due later (a re-visit after no access).
	Immediate bool
}

// Magic values in an address's notes choose the sandbox outcome.
const (
	MagicReject         = "SANDBOX_REJECT"
	MagicRejectResident = "SANDBOX_REJECT_RESIDENT"
	MagicNoAccess       = "SANDBOX_NO_ACCESS"
	MagicStall          = "SANDBOX_STALL"
	// MagicFlagged verifies the address with FAR_FROM_EXPECTED_LOCATION
	// and PHOTO_REUSED raised, as a live visit with doubtful evidence would.
	MagicFlagged = "SANDBOX_FLAGGED"
)

// sandboxAgent is the mock agent of every sandbox visit.
var sandboxAgent = Agent{ID: "agt_sandbox", Name: "Sandbox Agent (Tunde Bakare)"}

// scenario reads the magic value in notes; the longest match wins, since
// SANDBOX_REJECT is a prefix of SANDBOX_REJECT_RESIDENT.
func scenario(notes string) string {
	for _, m := range []string{MagicRejectResident, MagicReject, MagicNoAccess, MagicStall, MagicFlagged} {
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
			advanced, err = s.advance(ctx, tx, &c, now)
			return err
		})
		if err != nil || !found {
			return n, err
		}
		n += advanced
	}
	return n, nil
}

// due reports whether the sandbox acts on j by now.
func due(j Job, now time.Time) bool {
	return j.Env == EnvTest && j.DueAt != nil && !j.DueAt.After(now) && !IsFinal(j.Status)
}

// advance simulates every visit of c that is due by now, in the caller's
// transaction, and reports how many.
func (s *Service) advance(ctx context.Context, tx Tx, c *Case, now time.Time) (int, error) {
	n := 0
	for i := range c.Jobs {
		if !due(c.Jobs[i], now) {
			continue
		}
		if err := s.simulate(ctx, tx, c, &c.Jobs[i], now); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// startSandbox sees to a sandbox case's newly opened jobs, in the
// transaction that opened them: with Immediate and no delay it simulates
// them there and then; either way it wakes the worker for whatever is
// left due now (nothing is due now with a delay: the worker finds it when
// it falls due). Live cases are left alone.
func (s *Service) startSandbox(ctx context.Context, tx Tx, customerID string) error {
	if s.sandbox.Delay > 0 {
		return nil
	}
	c, err := tx.Case(ctx, customerID)
	if err != nil || c.Env != EnvTest {
		return err
	}
	now := s.now().UTC()
	if s.sandbox.Immediate {
		if _, err := s.advance(ctx, tx, &c, now); err != nil {
			return err
		}
	}
	if !slices.ContainsFunc(c.Jobs, func(j Job) bool { return due(j, now) }) {
		return nil
	}
	return tx.WakeSandbox(ctx)
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
		// The re-visit falls due after the delay, which the worker waits
		// for (at once with none: it looks again before it sleeps, and the
		// simulation run in a consumer's transaction wakes it).
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
	r, photos := s.evidence(*j, now, magic == MagicFlagged)
	if err := j.Complete(Verified, r, photos, now, "sandbox"); err != nil {
		return err
	}
	return s.changed(ctx, tx, c, j, photos, now)
}

// evidence is realistic mock evidence for a verified sandbox address: a
// point near where the address should be, notes, building and resident
// details that vary with the customer, and the stored mock photos. With
// flagged, the point is 17 km off and the first photo counts as reused,
// so a lender can build its handling of both flags against the sandbox.
func (s *Service) evidence(j Job, now time.Time, flagged bool) (Result, []Photo) {
	pick := picker(j.CustomerID)
	lat, lng := pointNear(j.Address, j.AddressID, flagged)
	accuracy, zero, yes, years := 8.5, 0.0, pick(2) == 0, 1+pick(12)
	who := sandboxResidents[pick(len(sandboxResidents))]
	b := sandboxBuildings[pick(len(sandboxBuildings))]
	r := Result{VerifiedAddress: OneLine(j.Address), VerifiedAt: &now, VerifiedLatitude: &lat, VerifiedLongitude: &lng,
		AgentNotes: fmt.Sprintf("Customer confirmed resident; building matches the description. Met the customer's %s at the gate.",
			strings.ToLower(who.relationship)),
		Agent: &sandboxAgent, GPSAccuracyMeters: &accuracy, DistanceFromCheckInMeters: &zero,
		Building:  &Building{Type: b[0], Colour: b[1], GatePresent: &yes},
		Resident:  &Resident{Name: who.name, Relationship: who.relationship, YearsAtAddress: &years},
		Neighbour: &Neighbour{Confirmed: true, Notes: "Neighbour at the next gate confirmed the family lives here."}}
	tags := []string{"building_front", "street_view"}
	if j.Address.Landmark != "" {
		tags = append(tags, "landmark")
	}
	var photos []Photo
	for i, tag := range tags {
		size, ok := s.sandbox.Photos[tag]
		if !ok {
			continue
		}
		// Taken during the simulated visit, which happens all at once, a
		// few metres apart around the completion point.
		at := &Point{Latitude: round6(lat + float64(i)*0.00004), Longitude: round6(lng - float64(i)*0.00003), Accuracy: accuracy}
		photos = append(photos, Photo{ID: ids.New("pho"), Tag: tag, ObjectKey: SandboxPhotoKey(tag), ContentType: "image/jpeg",
			Size: size, CapturedAt: now, CreatedAt: now, Device: at})
	}
	var flags flagSet
	expectedFlags(j.Address, Point{Latitude: lat, Longitude: lng}, &r, &flags)
	if flagged && len(photos) > 0 {
		flags.add(FlagPhotoReused, "%s matches a photo submitted for another address.", photoName(1, photos[0].Tag))
	}
	r.Flags, r.FlagDetails = flags.codes, flags.details
	return r, photos
}

// picker returns a function choosing 0..n-1, the same for the same seed
// each time it is called in turn: sandbox evidence differs between
// customers and stays the same for one.
func picker(seed string) func(n int) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(seed))
	v := h.Sum64()
	return func(n int) int {
		i := int(v % uint64(n))
		v /= uint64(n)
		return i
	}
}

// Sandbox residents and buildings: made-up people and common building
// descriptions, chosen per customer.
var (
	sandboxResidents = []struct{ name, relationship string }{
		{"Mrs. Okafor", "Spouse"}, {"Mr. Adeyemi", "Brother"}, {"Hajiya Bello", "Mother"}, {"Chiamaka Nwosu", "Sister"},
		{"Ibrahim Musa", "Cousin"}, {"Mrs. Eze", "Landlady"}, {"Tolu Bakare", "Husband"}, {"Mr. Effiong", "Father"},
	}
	sandboxBuildings = [][2]string{
		{"Bungalow", "Cream"}, {"Duplex", "White"}, {"Block of flats", "Grey"}, {"Face-me-I-face-you", "Yellow"},
		{"Bungalow", "Green"}, {"Storey building", "Peach"},
	}
)

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

// pointNear is a point near where a lies (its expected location, or
// Nigeria's centre for an address the gazetteer cannot place), offset by
// up to about 400 m in a direction fixed by seed; with far, north by
// 17.2 km or, for a coarse expected location, past its threshold.
func pointNear(a Address, seed string, far bool) (float64, float64) {
	lat, lng, farKM := 9.0820, 8.6753, 17.2
	if l, ok := ExpectedLocation(a); ok {
		lat, lng = l.Latitude, l.Longitude
		farKM = max(farKM, farFromExpected[l.Precision]*1.15/1000)
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(seed))
	v := h.Sum32()
	dlat := (float64(v%2000)/1000 - 1) * 0.0036
	dlng := (float64((v/2000)%2000)/1000 - 1) * 0.0036
	if far {
		// Due north, without the jitter, so the sentence reads 17.2 km.
		dlat, dlng = farKM/111.195, 0
	}
	return round6(lat + dlat), round6(lng + dlng)
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }
