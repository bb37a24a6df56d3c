package e2e

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kycfield/kyc/e2e/harness"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/kafkatest"
)

// placeView is the part of an address the intake check shapes.
type placeView struct {
	City, LGA, State, Country string
	ExpectedLocation          *struct {
		Latitude, Longitude float64
		Precision           string
	} `json:"expectedLocation"`
}

type placesCustomer struct {
	ID        string      `json:"id"`
	Addresses []placeView `json:"addresses"`
}

// detail finds the failure's detail on field.
func detail(t *testing.T, r harness.Response, field string) apperr.Detail {
	t.Helper()
	if r.Status != http.StatusBadRequest || r.Code() != "VALIDATION_ERROR" {
		t.Fatalf("want 400 VALIDATION_ERROR, got %d %s", r.Status, r.Body)
	}
	for _, d := range r.Env.Error.Details {
		if d.Field == field {
			return d
		}
	}
	t.Fatalf("no detail on %s: %s", field, r.Body)
	return apperr.Detail{}
}

// near says whether an expected location is within 1 km of lat, lon (a
// degree is about 111 km here).
func near(p placeView, precision string, lat, lon float64) bool {
	l := p.ExpectedLocation
	return l != nil && l.Precision == precision && math.Hypot(l.Latitude-lat, l.Longitude-lon) < 0.01
}

// Addresses are checked at intake, sandbox and live alike: a misspelt
// state, an LGA of another state or a foreign country is a 400 naming
// the field with suggestions; loose names are stored canonical; every
// read, and the event, carries where the address is expected.
func TestAddressPlacesAreChecked(t *testing.T) {
	t.Parallel()
	org := P.NewOrg(t, "growth")
	_, test := P.NewKey(t, org, "test")
	_, live := P.NewKey(t, org, "live")
	withAddress := func(a map[string]any) map[string]any {
		a["streetName"] = "Adeola Odeku Street"
		return newCustomer(map[string]any{"addresses": []map[string]any{a}})
	}
	for _, env := range []struct {
		name, key string
		loose     map[string]any // accepted, stored as want
		want      placeView
		lat, lon  float64 // the TOWN it is expected in
	}{
		{"sandbox", test, map[string]any{"city": "Lekki", "lga": "ETI-OSA", "state": "lagos state", "country": "ng"},
			placeView{City: "Lekki", LGA: "Eti Osa", State: "Lagos", Country: "Nigeria"}, 6.44, 3.47},
		{"live", live, map[string]any{"city": "Sokoto", "lga": "sokoto north lga", "state": "SOKOTO STATE"},
			placeView{City: "Sokoto", LGA: "Sokoto North", State: "Sokoto", Country: "Nigeria"}, 13.06, 5.24},
	} {
		t.Run(env.name, func(t *testing.T) {
			events := kafkatest.Follow(t, P.Bus, P.Bus.Topic(event.TopicCustomer))
			r := P.API(t, "POST", "/api/v1/customers", env.key, withAddress(map[string]any{"city": "Ikeja", "state": "Lagoss"}))
			if d := detail(t, r, "addresses[0].state"); len(d.Suggestions) == 0 || d.Suggestions[0] != "Lagos" {
				t.Errorf("Lagoss: %+v", d)
			}
			r = P.API(t, "POST", "/api/v1/customers", env.key, withAddress(map[string]any{"city": "Kano", "lga": "Ikeja", "state": "Kano"}))
			if d := detail(t, r, "addresses[0].state"); !slices.Equal(d.Suggestions, []string{"Lagos"}) {
				t.Errorf("Ikeja in Kano, state: %+v", d)
			}
			if d := detail(t, r, "addresses[0].lga"); !strings.Contains(d.Message, "Kano") {
				t.Errorf("Ikeja in Kano, lga: %+v", d)
			}
			r = P.API(t, "POST", "/api/v1/customers", env.key, withAddress(map[string]any{"city": "Accra", "state": "Lagos", "country": "Ghana"}))
			detail(t, r, "addresses[0].country")

			r = P.API(t, "POST", "/api/v1/customers", env.key, withAddress(env.loose))
			if r.Status != http.StatusCreated {
				t.Fatalf("create %v: %d %s", env.loose, r.Status, r.Body)
			}
			var c placesCustomer
			r.Decode(t, &c)
			check := func(what string, got placeView) {
				t.Helper()
				if got.LGA != env.want.LGA || got.State != env.want.State || got.Country != env.want.Country || !near(got, "TOWN", env.lat, env.lon) {
					t.Errorf("%s: %+v (expected at %+v), want %+v near %v,%v", what, got, got.ExpectedLocation, env.want, env.lat, env.lon)
				}
			}
			check("create", c.Addresses[0])
			readsShowIt(t, env.key, c.ID, check)

			// Adding an address: checked the same way, its path without a prefix.
			r = P.API(t, "POST", "/api/v1/customers/"+c.ID+"/addresses", env.key, map[string]any{"streetName": "Aminu Kano Crescent", "city": "Wuse", "state": "Lagoss"})
			if d := detail(t, r, "state"); len(d.Suggestions) == 0 || d.Suggestions[0] != "Lagos" {
				t.Errorf("add Lagoss: %+v", d)
			}
			r = P.API(t, "POST", "/api/v1/customers/"+c.ID+"/addresses", env.key, map[string]any{"streetName": "Aminu Kano Crescent", "city": "Wuse", "state": "Abuja", "lga": "amac"})
			var added placesCustomer
			r.Decode(t, &added)
			if r.Status != http.StatusCreated || len(added.Addresses) != 2 {
				t.Fatalf("add: %d %s", r.Status, r.Body)
			}
			if a := added.Addresses[1]; a.State != "FCT" || a.LGA != "Abuja Municipal Area Council" || !near(a, "LGA", 9.06, 7.50) {
				t.Errorf("added: %+v %+v", a, a.ExpectedLocation)
			}
			e := events.WaitFor(func(e event.Event) bool {
				return e.Type == "address.added" && strings.Contains(string(e.Data), c.ID)
			}, 10*time.Second)
			var data struct{ Address placeView }
			if err := json.Unmarshal(e.Data, &data); err != nil || data.Address.State != "FCT" || !near(data.Address, "LGA", 9.06, 7.50) {
				t.Errorf("address.added: %v %s", err, e.Data)
			}
		})
	}
}

// readsShowIt holds GET, the list, an update's response and the status
// endpoint to showing the first address as check wants it.
func readsShowIt(t *testing.T, key, id string, check func(string, placeView)) {
	t.Helper()
	var got placesCustomer
	P.API(t, "GET", "/api/v1/customers/"+id, key, nil).Decode(t, &got)
	check("GET", got.Addresses[0])
	r := P.API(t, "PUT", "/api/v1/customers/"+id, key, map[string]any{"occupation": "Trader"})
	if r.Status != http.StatusOK {
		t.Fatalf("update: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &got)
	check("PUT", got.Addresses[0])
	P.API(t, "GET", "/api/v1/verification/"+id+"/status", key, nil).Decode(t, &got)
	check("status", got.Addresses[0])
	var list struct {
		Customers []json.RawMessage `json:"customers"`
	}
	P.API(t, "GET", "/api/v1/customers?limit=100", key, nil).Decode(t, &list)
	for _, raw := range list.Customers {
		var c placesCustomer
		if err := json.Unmarshal(raw, &c); err == nil && c.ID == id && len(c.Addresses) > 0 {
			check("list", c.Addresses[0])
			return
		}
	}
	t.Errorf("customer %s not listed", id)
}
