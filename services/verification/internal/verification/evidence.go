package verification

import (
	"math"
	"slices"
	"time"

	"github.com/kycfield/kyc/pkg/gazetteer"
)

// distance is the great-circle distance between two points in metres
// (the gazetteer's haversine, so every distance the platform reports is
// worked out one way).
func distance(aLat, aLng, bLat, bLng float64) float64 {
	return gazetteer.Distance(gazetteer.Point{Latitude: aLat, Longitude: aLng}, gazetteer.Point{Latitude: bLat, Longitude: bLng})
}

// Position is where a photo was taken: the file's EXIF GPS where it
// survived, else the phone's fix at capture (as the photo flags judge
// it); ok is false when neither was recorded.
func (p Photo) Position() (pt Point, ok bool) {
	switch {
	case p.Exif != nil && p.Exif.Latitude != nil && p.Exif.Longitude != nil:
		return Point{Latitude: *p.Exif.Latitude, Longitude: *p.Exif.Longitude}, true
	case p.Device != nil:
		return *p.Device, true
	}
	return Point{}, false
}

// DistanceMeters is the great-circle distance between a and b in metres.
func DistanceMeters(a, b Point) float64 {
	return distance(a.Latitude, a.Longitude, b.Latitude, b.Longitude)
}

// Evidence thresholds; crossing one flags the result, never blocks it.
const (
	maxPhotoDistance   = 250.0 // metres between a photo's EXIF GPS and the completion point
	maxCheckInDistance = 250.0 // metres between check-in and completion
	minAccuracy        = 50.0  // metres; a worse fix is flagged
	visitSlack         = 10 * time.Minute
	// maxStateDistance approximates a state's bounds by a radius around its
	// centre (the largest states span about 300 km).
	maxStateDistance = 200_000.0
)

// Flags raised on completion (and, for some, at check-in). Each has a
// severity (FlagSeverity) and is explained in Result.FlagDetails.
const (
	FlagCheckInFar         = "CHECKIN_FAR_FROM_COMPLETION"
	FlagPhotoFar           = "PHOTO_GPS_FAR_FROM_COMPLETION" // EXIF GPS, else the phone's at capture
	FlagPhotoTime          = "PHOTO_TIME_OUTSIDE_VISIT"
	FlagLowAccuracy        = "LOW_GPS_ACCURACY"
	FlagOutsideState       = "OUTSIDE_ADDRESS_STATE"
	FlagPhotoWithoutGPS    = "PHOTO_WITHOUT_GPS"
	FlagCheckInLowAccuracy = "CHECKIN_LOW_GPS_ACCURACY"
	FlagPhotoReused        = "PHOTO_REUSED"
	FlagSuspectLocation    = "SUSPECT_LOCATION"
	FlagImpossibleTravel   = "IMPOSSIBLE_TRAVEL"
	FlagShortVisit         = "SHORT_VISIT"
	FlagFarFromExpected    = "FAR_FROM_EXPECTED_LOCATION"
)

// visitEvidence is what the completion checks know besides the job and
// the outcome: the agent's last fix at another address (a fix identical
// to it is suspect), and whether the visit's length counts (not for a
// visit that found no access).
type visitEvidence struct {
	elsewhere  *Fix
	timedVisit bool
}

// evidenceFlags checks a visit's evidence and fills the distances and
// flags, the check-in's flags first.
func evidenceFlags(j Job, at Point, photos []Photo, now time.Time, ev visitEvidence, r *Result) {
	var flags flagSet
	if j.Visit != nil {
		flags.addDetails(j.Visit.Flags)
		d := math.Round(distance(j.Visit.Latitude, j.Visit.Longitude, at.Latitude, at.Longitude))
		r.DistanceFromCheckInMeters = &d
		if d > maxCheckInDistance {
			flags.add(FlagCheckInFar, "The visit was completed %s from where the agent checked in (more than %s).", meters(d), meters(maxCheckInDistance))
		}
		if j.Visit.Accuracy > minAccuracy {
			flags.add(FlagCheckInLowAccuracy, "The check-in fix was accurate to only %s (worse than %s).", meters(j.Visit.Accuracy), meters(minAccuracy))
		}
		if ev.timedVisit {
			shortVisit(j.Visit.At, now, &flags)
		}
	}
	acc := at.Accuracy
	r.GPSAccuracyMeters = &acc
	if acc > minAccuracy {
		flags.add(FlagLowAccuracy, "The completion fix was accurate to only %s (worse than %s).", meters(acc), meters(minAccuracy))
	}
	suspectFix("completion", at, ev.elsewhere, &flags)
	if c, ok := places().StateCentre(j.Address.State); ok {
		if d := distance(c.Latitude, c.Longitude, at.Latitude, at.Longitude); d > maxStateDistance {
			flags.add(FlagOutsideState, "The visit was completed %s from the centre of %s state (more than %s).", meters(d), j.Address.State, meters(maxStateDistance))
		}
	}
	expectedFlags(j.Address, at, r, &flags)
	for _, p := range photos {
		photoFlags(j, at, p, now, &flags)
	}
	r.Flags, r.FlagDetails = flags.codes, flags.details
}

// expectedFlags records how far the completion was from where the address
// should be, and flags it past the threshold of the expected location's
// precision.
func expectedFlags(a Address, at Point, r *Result, flags *flagSet) {
	l, ok := ExpectedLocation(a)
	if !ok {
		return
	}
	d := math.Round(distance(l.Latitude, l.Longitude, at.Latitude, at.Longitude))
	r.DistanceFromExpectedMeters = &d
	if limit := farFromExpected[l.Precision]; d > limit {
		flags.add(FlagFarFromExpected, "The visit was completed %s from where the address should be (%s; more than %s).",
			meters(d), precisionWords(a, l), meters(limit))
	}
}

// photoFlags checks where and when one photo of the visit was taken, and
// whether it was seen before at another address.
func photoFlags(j Job, at Point, p Photo, now time.Time, flags *flagSet) {
	name := photoName(slices.IndexFunc(j.Photos, func(q Photo) bool { return q.ID == p.ID })+1, p.Tag)
	// The file's own GPS where it survived, else the phone's position
	// the app recorded at capture (browsers strip EXIF GPS).
	switch {
	case p.Exif != nil && p.Exif.Latitude != nil:
		if d := distance(*p.Exif.Latitude, *p.Exif.Longitude, at.Latitude, at.Longitude); d > maxPhotoDistance {
			flags.add(FlagPhotoFar, "%s was taken %s from where the visit was completed (by the position in the photo file).", name, meters(d))
		}
	case p.Device != nil:
		if d := distance(p.Device.Latitude, p.Device.Longitude, at.Latitude, at.Longitude); d > maxPhotoDistance {
			flags.add(FlagPhotoFar, "%s was taken %s from where the visit was completed (by the phone's position at capture).", name, meters(d))
		}
	default:
		flags.add(FlagPhotoWithoutGPS, "%s has no position: neither the photo file nor the phone recorded one.", name)
	}
	if p.Exif != nil && p.Exif.Taken != nil && j.Visit != nil {
		switch taken := *p.Exif.Taken; {
		case taken.Before(j.Visit.At.Add(-visitSlack)):
			flags.add(FlagPhotoTime, "%s was taken at %s, %s before the check-in.", name, clock(taken), span(j.Visit.At.Sub(taken)))
		case taken.After(now.Add(visitSlack)):
			flags.add(FlagPhotoTime, "%s was taken at %s, %s after the visit was completed.", name, clock(taken), span(taken.Sub(now)))
		}
	}
	if p.Reused {
		flags.add(FlagPhotoReused, "%s matches a photo submitted for another address.", name)
	}
}
