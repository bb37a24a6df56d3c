package opsapp

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/kycfield/kyc/pkg/gazetteer"
)

// The generated map (gen-map.sh) must name exactly the gazetteer's 37
// states, so that every state the coverage API reports has a shape and
// every shape a state.
func TestMapHasTheGazetteersStates(t *testing.T) {
	b, err := os.ReadFile("static/nigeria-map.js")
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile(`\{"id":"[a-z-]+","name":"([^"]+)","d":"m [-0-9., zZlLmMcChHvV]+"\}`)
	var names []string
	for _, m := range entry.FindAllSubmatch(b, -1) {
		names = append(names, string(m[1]))
	}
	want := gazetteer.Nigeria().States()
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("map states %v\nwant the gazetteer's %v", names, want)
	}
}
