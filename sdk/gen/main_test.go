package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

const sample = `openapi: 3.1.0
info: {title: t, version: '1'}
tags:
  - {name: Customers}
  - {name: Dashboard}
  - {name: Unused}
paths:
  /api/v1/customers:
    get:
      tags: [Customers]
      security: [{apiKey: [kyc:read]}]
      parameters: &params
        - $ref: '#/components/parameters/Limit'
      responses:
        '200':
          content:
            application/json:
              schema: {$ref: '#/components/schemas/List'}
  /api/v1/openapi.yaml:
    get:
      tags: [Meta]
      responses: {'200': {$ref: '#/components/responses/Yaml'}}
  /dashboard/v1/me:
    get:
      tags: [Dashboard]
      security: [{session: []}]
      parameters: *params
      responses:
        '200':
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Me'}
webhooks:
  done:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Hook'}
components:
  responses:
    Yaml: {description: the document}
  securitySchemes:
    apiKey: {type: http, scheme: bearer}
    session: {type: apiKey, in: cookie, name: s}
  parameters:
    Limit: {name: limit, in: query, schema: {type: integer, default: 20, maximum: 1.5e2}}
  schemas:
    List: {type: object, properties: {items: {type: array, items: {$ref: '#/components/schemas/Item'}}, at: {type: string, examples: [2026-11-23T10:00:00Z]}}}
    Item: {type: [string, 'null'], enum: [a, null]}
    Me: {type: object, properties: {org: {$ref: '#/components/schemas/Org'}}}
    Org: {type: object}
    Hook: {type: object, properties: {flag: {type: boolean, default: true}}}
`

var public = Options{Prefix: "/api/v1/", Skip: []string{"/api/v1/openapi.yaml"}}

// The filter keeps the public paths, the webhooks and exactly what they
// reach (transitively), and writes JSON with values as YAML means them.
func TestFilter(t *testing.T) {
	out, err := Filter([]byte(sample), public)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tags       []struct{ Name string }
		Paths      map[string]any
		Webhooks   map[string]any
		Components map[string]map[string]any
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	keys := func(m map[string]any) []string {
		var k []string
		for name := range m {
			k = append(k, name)
		}
		slices.Sort(k)
		return k
	}
	for _, c := range []struct {
		what string
		got  []string
		want []string
	}{
		{"paths", keys(doc.Paths), []string{"/api/v1/customers"}},
		{"webhooks", keys(doc.Webhooks), []string{"done"}},
		{"schemas", keys(doc.Components["schemas"]), []string{"Hook", "Item", "List"}},
		{"parameters", keys(doc.Components["parameters"]), []string{"Limit"}},
		{"responses (the skipped path's)", keys(doc.Components["responses"]), nil},
		{"securitySchemes", keys(doc.Components["securitySchemes"]), []string{"apiKey"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
	if len(doc.Tags) != 1 || doc.Tags[0].Name != "Customers" {
		t.Errorf("tags: %v", doc.Tags)
	}
	for _, want := range []string{`"default": 20`, `"maximum": 150`, `"default": true`, `null`, `"2026-11-23T10:00:00Z"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	again, _ := Filter([]byte(sample), public)
	if string(again) != string(out) {
		t.Error("output differs between two runs")
	}
}

// Without the webhooks, the schemas of their bodies stay.
func TestFilterDropWebhooks(t *testing.T) {
	o := public
	o.DropWebhooks = true
	out, err := Filter([]byte(sample), o)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["webhooks"]; ok {
		t.Error("webhooks kept")
	}
	if _, ok := doc["components"].(map[string]any)["schemas"].(map[string]any)["Hook"]; !ok {
		t.Error("the webhook body's schema was dropped")
	}
}

// laughs is a document of 9 levels of aliases, 10 to a level: 10^9 leaves.
func laughs() string {
	var b strings.Builder
	b.WriteString("x0: &x0 [" + strings.Repeat("lol,", 9) + "lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "x%d: &x%d [%s*x%d]\n", i, i, strings.Repeat(fmt.Sprintf("*x%d,", i-1), 9), i-1)
	}
	b.WriteString("paths: {/api/v1/a: {get: *x9}}\n")
	return b.String()
}

func TestFilterRefuses(t *testing.T) {
	for _, c := range []struct{ name, in string }{
		{"not yaml", "{"},
		{"not a mapping", "- a"},
		{"no paths", "openapi: 3.1.0"},
		{"nothing under the prefix", "paths: {/dashboard/v1/me: {}}"},
		{"an alias inside itself", "paths: {/api/v1/a: &a {b: *a}}"},
		{"aliases without end", laughs()},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Filter([]byte(c.in), Options{Prefix: "/api/v1/"}); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

// The real document: the public API only, and no component of another.
func TestFilterTheRealDocument(t *testing.T) {
	in, err := os.ReadFile("../../api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Filter(in, Options{Prefix: "/api/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]any
		Components map[string]map[string]any
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Paths["/api/v1/customers"]; !ok {
		t.Fatal("no /api/v1/customers")
	}
	for p := range doc.Paths {
		if !strings.HasPrefix(p, "/api/v1/") {
			t.Errorf("kept %s", p)
		}
	}
	if _, ok := doc.Components["securitySchemes"]["agentSession"]; ok {
		t.Error("kept the agents' security scheme")
	}
}

// Whatever the document, Filter answers an error or JSON, never panics.
func FuzzFilter(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("paths: {/api/v1/a: {get: {$ref: '#/components/schemas/X'}}}\ncomponents: {schemas: {X: &a {y: *a}}}"))
	f.Add([]byte("paths: {/api/v1/a: {security: [x, {y: []}], tags: [1, {a: b}]}}\ntags: [x, {name: 1}]"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Filter(in, public)
		if err == nil && !json.Valid(out) {
			t.Fatalf("invalid JSON for %q:\n%s", in, out)
		}
	})
}
