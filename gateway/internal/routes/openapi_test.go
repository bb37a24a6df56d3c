package routes

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kycfield/kyc/api"
)

type document struct {
	OpenAPI string                               `yaml:"openapi"`
	Paths   map[string]map[string]map[string]any `yaml:"paths"`
}

// Every route the gateway serves is documented with its method.
func TestEveryRouteIsInTheOpenAPIDocument(t *testing.T) {
	var doc document
	if err := yaml.Unmarshal(api.OpenAPI, &doc); err != nil {
		t.Fatalf("api/openapi.yaml is not valid YAML: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("openapi version %q, want 3.1.x", doc.OpenAPI)
	}
	for _, rt := range Table {
		ops, ok := doc.Paths[rt.Pattern]
		if !ok {
			t.Errorf("path %s is routed but not documented", rt.Pattern)
			continue
		}
		if _, ok := ops[strings.ToLower(rt.Method)]; !ok {
			t.Errorf("%s %s is routed but not documented", rt.Method, rt.Pattern)
		}
	}
	for path, ops := range doc.Paths {
		for method := range ops {
			if method == "parameters" || method == "summary" || method == "description" {
				continue
			}
			if !slices.ContainsFunc(Table, func(r Route) bool { return r.Pattern == path && strings.EqualFold(r.Method, method) }) {
				t.Errorf("%s %s is documented but not routed", strings.ToUpper(method), path)
			}
		}
	}
}

var codeConst = regexp.MustCompile(`Code\w*\s*=\s*"([A-Z][A-Z_]+)"`)

// Every error code declared anywhere in the platform is documented.
func TestEveryErrorCodeIsDocumented(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	var codes []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".data" || d.Name() == "bin" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range codeConst.FindAllStringSubmatch(string(b), -1) {
			codes = append(codes, m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) < 20 {
		t.Fatalf("found only %d codes; is the walk broken?", len(codes))
	}
	for _, c := range codes {
		if !strings.Contains(string(api.OpenAPI), c) {
			t.Errorf("error code %s is not documented in api/openapi.yaml", c)
		}
	}
}
