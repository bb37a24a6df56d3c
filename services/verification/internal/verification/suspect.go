package verification

import (
	"strconv"
	"strings"
	"time"
)

// Fix is a position an agent reported at a check-in or a completion,
// kept so that the agent's next one can be compared with it.
type Fix struct {
	AgentID, AddressID string
	Kind               string // FixCheckIn or FixCompletion
	Point
	// At is the server's time of the call, never the phone's.
	At time.Time
}

// Kinds of Fix.
const (
	FixCheckIn    = "CHECK_IN"
	FixCompletion = "COMPLETION"
)

// Thresholds of the rules against made-up visits.
const (
	// maxSpeed is faster than any road trip between two addresses.
	maxSpeed = 150.0 // km/h
	// minTravel is a move too small to judge: a GPS fix wanders that far.
	minTravel = 1000.0 // metres
	// minVisit is the shortest a real visit takes, check-in to completion.
	minVisit = 3 * time.Minute
	// maxRoundedDecimals: a phone's fix has 6 or more decimals; typed or
	// simulated positions have few.
	maxRoundedDecimals = 4
)

// suspectFix flags a fix that a phone's GPS would not give: accuracy 0
// (what mock-location apps report, as ODK Collect notes), both
// coordinates with 4 or fewer decimals, or exactly the agent's last fix
// at another address. what names the fix ("check-in", "completion").
func suspectFix(what string, p Point, elsewhere *Fix, flags *flagSet) {
	if p.Accuracy == 0 {
		flags.add(FlagSuspectLocation, "The %s fix reports an accuracy of 0 m, as mock-location apps do; a phone's GPS never does.", what)
	}
	if decimals(p.Latitude) <= maxRoundedDecimals && decimals(p.Longitude) <= maxRoundedDecimals {
		flags.add(FlagSuspectLocation, "The %s fix (%s, %s) has %d or fewer decimals, as typed or simulated positions do; a phone's GPS gives 6 or more.",
			what, coord(p.Latitude), coord(p.Longitude), maxRoundedDecimals)
	}
	if elsewhere != nil && elsewhere.Latitude == p.Latitude && elsewhere.Longitude == p.Longitude {
		flags.add(FlagSuspectLocation, "The %s fix is identical to the agent's fix at another address at %s; two real fixes never coincide exactly.",
			what, clock(elsewhere.At))
	}
}

// decimals counts the decimals of v as it was sent (the shortest form
// that reads back as v).
func decimals(v float64) int {
	s := coord(v)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

func coord(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// checkInFlags checks a check-in against the agent's last fix anywhere
// (travel) and its last fix at another address (an identical fix).
func checkInFlags(at Point, now time.Time, last, elsewhere *Fix) []FlagDetail {
	var flags flagSet
	suspectFix("check-in", at, elsewhere, &flags)
	if last != nil {
		impossibleTravel(*last, at, now, &flags)
	}
	return flags.details
}

// impossibleTravel flags a check-in reached from the agent's last fix
// faster than maxSpeed.
func impossibleTravel(last Fix, at Point, now time.Time, flags *flagSet) {
	d := distance(last.Latitude, last.Longitude, at.Latitude, at.Longitude)
	if d <= minTravel {
		return
	}
	elapsed := now.Sub(last.At)
	hours := elapsed.Hours()
	if hours > 0 && d/1000/hours <= maxSpeed {
		return
	}
	what := "check-in"
	if last.Kind == FixCompletion {
		what = "completed visit"
	}
	speed := "at once"
	if hours > 0 {
		speed = "at " + strconv.FormatFloat(round1(d/1000/hours), 'f', -1, 64) + " km/h"
	}
	flags.add(FlagImpossibleTravel, "Checked in %s from the agent's previous %s %s earlier (%s; over %.0f km/h is not possible by road).",
		meters(d), what, span(elapsed), speed, maxSpeed)
}

// shortVisit flags a visit completed less than minVisit after check-in.
func shortVisit(checkIn, now time.Time, flags *flagSet) {
	if d := now.Sub(checkIn); d < minVisit {
		flags.add(FlagShortVisit, "The visit lasted %s from check-in to completion (under %s).", span(d), span(minVisit))
	}
}
