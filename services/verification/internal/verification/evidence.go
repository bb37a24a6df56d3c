package verification

import (
	"math"
	"slices"
	"time"
)

// distance is the great-circle distance between two points in metres.
func distance(aLat, aLng, bLat, bLng float64) float64 {
	const r = 6_371_000
	rad := math.Pi / 180
	dLat, dLng := (bLat-aLat)*rad, (bLng-aLng)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(aLat*rad)*math.Cos(bLat*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * r * math.Asin(math.Sqrt(h))
}

// Position is where a photo was taken: the app's own fix at capture, else
// the file's EXIF GPS; ok is false when neither was recorded.
func (p Photo) Position() (pt Point, ok bool) {
	switch {
	case p.Device != nil:
		return *p.Device, true
	case p.Exif != nil && p.Exif.Latitude != nil && p.Exif.Longitude != nil:
		return Point{Latitude: *p.Exif.Latitude, Longitude: *p.Exif.Longitude}, true
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

// Flags raised on completion.
const (
	FlagCheckInFar         = "CHECKIN_FAR_FROM_COMPLETION"
	FlagPhotoFar           = "PHOTO_GPS_FAR_FROM_COMPLETION" // EXIF GPS, else the phone's at capture
	FlagPhotoTime          = "PHOTO_TIME_OUTSIDE_VISIT"
	FlagLowAccuracy        = "LOW_GPS_ACCURACY"
	FlagOutsideState       = "OUTSIDE_ADDRESS_STATE"
	FlagPhotoWithoutGPS    = "PHOTO_WITHOUT_GPS"
	FlagCheckInLowAccuracy = "CHECKIN_LOW_GPS_ACCURACY"
)

// evidenceFlags checks a visit's evidence and fills the distances.
func evidenceFlags(j Job, at Point, photos []Photo, now time.Time, r *Result) {
	var flags flagSet
	if j.Visit != nil {
		d := math.Round(distance(j.Visit.Latitude, j.Visit.Longitude, at.Latitude, at.Longitude))
		r.DistanceFromCheckInMeters = &d
		if d > maxCheckInDistance {
			flags.add(FlagCheckInFar)
		}
		if j.Visit.Accuracy > minAccuracy {
			flags.add(FlagCheckInLowAccuracy)
		}
	}
	acc := at.Accuracy
	r.GPSAccuracyMeters = &acc
	if acc > minAccuracy {
		flags.add(FlagLowAccuracy)
	}
	if c, ok := stateCentres[normalState(j.Address.State)]; ok && distance(c[0], c[1], at.Latitude, at.Longitude) > maxStateDistance {
		flags.add(FlagOutsideState)
	}
	for _, p := range photos {
		photoFlags(j, at, p, now, &flags)
	}
	r.Flags = flags
}

// photoFlags checks where and when one photo of the visit was taken.
func photoFlags(j Job, at Point, p Photo, now time.Time, flags *flagSet) {
	// The file's own GPS where it survived, else the phone's position
	// the app recorded at capture (browsers strip EXIF GPS).
	switch {
	case p.Exif != nil && p.Exif.Latitude != nil:
		if distance(*p.Exif.Latitude, *p.Exif.Longitude, at.Latitude, at.Longitude) > maxPhotoDistance {
			flags.add(FlagPhotoFar)
		}
	case p.Device != nil:
		if distance(p.Device.Latitude, p.Device.Longitude, at.Latitude, at.Longitude) > maxPhotoDistance {
			flags.add(FlagPhotoFar)
		}
	default:
		flags.add(FlagPhotoWithoutGPS)
	}
	if p.Exif != nil && p.Exif.Taken != nil && j.Visit != nil &&
		(p.Exif.Taken.Before(j.Visit.At.Add(-visitSlack)) || p.Exif.Taken.After(now.Add(visitSlack))) {
		flags.add(FlagPhotoTime)
	}
}

// flagSet is the flags raised, each once, in the order first raised.
type flagSet []string

func (f *flagSet) add(flag string) {
	if !slices.Contains(*f, flag) {
		*f = append(*f, flag)
	}
}
