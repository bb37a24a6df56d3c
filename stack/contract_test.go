package stack

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kycfield/kyc/api"
	"github.com/kycfield/kyc/pkg/event"
)

const schemaBase = "https://kyc.example/events/"

// TestEventContracts holds every producer and every consumer to the
// schemas in api/events: each producer's samples (made by its own code)
// must match its topic's schema, and every consumer's struct must decode
// every producer's sample of the type it reads and find each field it
// relies on (one without omitempty) present.
func TestEventContracts(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	entries, err := api.EventSchemas.ReadDir("events")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, _ := api.EventSchemas.ReadFile("events/" + e.Name())
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if err := c.AddResource(schemaBase+e.Name(), doc); err != nil {
			t.Fatal(err)
		}
	}
	envelope, err := c.Compile(schemaBase + "envelope.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range All() {
		for _, topic := range s.Topics {
			if _, err := api.EventSchemas.ReadFile("events/" + topic + ".json"); err != nil {
				t.Errorf("%s uses topic %s, which has no schema in api/events", s.Name, topic)
			}
		}
	}

	published := map[string][]event.Sample{}
	for _, s := range All() {
		if s.Events.Samples == nil {
			continue
		}
		for _, sm := range s.Events.Samples() {
			published[sm.Event.Type] = append(published[sm.Event.Type], sm)
			checkSample(t, c, envelope, s.Name, sm)
		}
	}
	for _, s := range All() {
		for _, r := range s.Events.Reads {
			if len(published[r.Type]) == 0 {
				t.Errorf("%s reads %s, which no service publishes", s.Name, r.Type)
			}
			for _, sm := range published[r.Type] {
				checkRead(t, s.Name, r.Into, sm)
			}
		}
	}
}

// elevenDigits would be a BVN or NIN in clear.
// elevenDigits finds a BVN or NIN standing alone (as a JSON string or
// number), not a run of digits inside a hex id such as cus_01a20a10186079789ca…
var elevenDigits = regexp.MustCompile(`(^|[^0-9A-Za-z_])[0-9]{11}([^0-9A-Za-z_]|$)`)

func checkSample(t *testing.T, c *jsonschema.Compiler, envelope *jsonschema.Schema, producer string, sm event.Sample) {
	t.Helper()
	whole, _ := json.Marshal(sm.Event)
	if err := envelope.Validate(instance(t, whole)); err != nil {
		t.Errorf("%s %s: envelope: %v", producer, sm.Event.Type, err)
	}
	sch, err := c.Compile(schemaBase + sm.Topic + ".json#/$defs/" + sm.Event.Type)
	if err != nil {
		t.Errorf("%s publishes %s on %s, which its schema does not describe: %v", producer, sm.Event.Type, sm.Topic, err)
		return
	}
	if err := sch.Validate(instance(t, sm.Event.Data)); err != nil {
		t.Errorf("%s %s does not match api/events/%s.json: %v", producer, sm.Event.Type, sm.Topic, err)
	}
	if elevenDigits.Match(sm.Event.Data) {
		t.Errorf("%s %s carries an unmasked 11-digit number: %s", producer, sm.Event.Type, sm.Event.Data)
	}
}

func checkRead(t *testing.T, consumer string, zero any, sm event.Sample) {
	t.Helper()
	dst := reflect.New(reflect.TypeOf(zero))
	if err := json.Unmarshal(sm.Event.Data, dst.Interface()); err != nil {
		t.Errorf("%s cannot decode %s: %v", consumer, sm.Event.Type, err)
		return
	}
	for _, path := range missing(reflect.TypeOf(zero), sm.Event.Data, "") {
		t.Errorf("%s reads %s.%s, which the producer does not send", consumer, sm.Event.Type, path)
	}
}

// missing lists the fields of struct t that have no omitempty and are
// absent from the JSON object data, nested structs included.
func missing(t reflect.Type, data json.RawMessage, prefix string) []string {
	var sent map[string]json.RawMessage
	if json.Unmarshal(data, &sent) != nil {
		return nil // not an object: Unmarshal into t has said so already
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || strings.Contains(opts, "omitempty") {
			continue
		}
		if name == "" {
			name = f.Name
		}
		raw, ok := sent[name]
		if !ok {
			out = append(out, prefix+name)
			continue
		}
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Time{}) {
			out = append(out, missing(f.Type, raw, prefix+name+".")...)
		}
	}
	return out
}

func instance(t *testing.T, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return v
}
