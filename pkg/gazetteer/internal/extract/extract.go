// Package extract is the layout of the embedded data file, shared by the
// generator that writes it and the gazetteer that reads it.
package extract

// File is the whole extract.
type File struct {
	// Sources says where every value came from, with versions and licences.
	Sources []Source `json:"sources"`
	States  []State  `json:"states"`
}

// Source is one input package.
type Source struct {
	Package     string `json:"package"`
	Version     string `json:"version"`
	License     string `json:"license"`
	Attribution string `json:"attribution"`
	Used        string `json:"used"`
}

// State is one of the 36 states or the FCT.
type State struct {
	Name     string `json:"name"`
	GeoNames string `json:"geonames"`
	// Lat and Lon are the state's reference point: its town nearest the
	// mean of its towns' coordinates.
	Lat  float64 `json:"lat"`
	Lon  float64 `json:"lon"`
	LGAs []LGA   `json:"lgas"`
	// Towns are the state's towns GeoNames places in no LGA we know.
	Towns []Town `json:"towns,omitempty"`
}

// LGA is a local government area.
type LGA struct {
	Name string `json:"name"`
	// Aka are GeoNames' other names for it.
	Aka []string `json:"aka,omitempty"`
	// Lat and Lon are absent (zero) when GeoNames has no town in it.
	Lat   float64 `json:"lat,omitempty"`
	Lon   float64 `json:"lon,omitempty"`
	Towns []Town  `json:"towns,omitempty"`
}

// Town is a populated place.
type Town struct {
	Name string  `json:"name"`
	Lat  float64 `json:"lat"`
	Lon  float64 `json:"lon"`
}
