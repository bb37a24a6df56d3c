package main

import (
	"testing"

	"github.com/kycfield/kyc/pkg/gazetteer/internal/extract"
)

func TestCleanLGA(t *testing.T) {
	for in, want := range map[string]string{
		"Ganju/Ganjuwa": "Ganjuwa", "Obafemi/Obafemi Owode": "Obafemi Owode", "Obio/Akpor": "Obio/Akpor",
		"Ogba/Egbema/Ndoni": "Ogba/Egbema/Ndoni", "  Eti   Osa ": "Eti Osa", "Ado-Odo/Ota": "Ado-Odo/Ota",
	} {
		if got := cleanLGA(in); got != want {
			t.Errorf("cleanLGA(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClosest(t *testing.T) {
	s := &extract.State{GeoNames: "NG.40", LGAs: []extract.LGA{{Name: "Arewa"}, {Name: "Danko-Wasagu"}, {Name: "Ukwa East"}, {Name: "Yauri"}}}
	for in, want := range map[string]string{
		"Wasagu-Danko": "Danko-Wasagu", "Arewa Dandi": "Arewa", "Yaurii": "Yauri", "Ukwa Eest": "Ukwa East", "Zuru": "",
	} {
		l, _ := closest(s, division{Code: "NG.40.1", Name: in}, map[*extract.LGA]bool{})
		got := ""
		if l != nil {
			got = l.Name
		}
		if got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}
