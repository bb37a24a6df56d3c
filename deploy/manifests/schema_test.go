package manifests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/yannh/kubeconform/pkg/resource"
	"github.com/yannh/kubeconform/pkg/validator"

	"github.com/kycfield/kyc/deploy/manifests/internal/k8sschema"
)

// schemaDir holds the committed schemas (see schemas/README.md).
var schemaDir = filepath.Join("schemas", k8sschema.Dir)

// newValidator is kubeconform in strict mode reading only the committed
// schemas: no network, and a kind without a schema is an error.
func newValidator(t *testing.T) validator.Validator {
	t.Helper()
	abs, err := filepath.Abs("schemas")
	if err != nil {
		t.Fatal(err)
	}
	v, err := validator.New([]string{abs + "/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json"},
		validator.Opts{KubernetesVersion: k8sschema.Version, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// validate returns "" for a valid object, else why it is not.
func validate(v validator.Validator, o object) string {
	res := v.ValidateResource(resource.Resource{Path: o.ID, Bytes: o.YAML})
	if res.Status == validator.Valid {
		return ""
	}
	if res.Err == nil {
		return fmt.Sprintf("status %d", res.Status)
	}
	// The error names the innermost failures (kubeconform's
	// ValidationErrors stop at the first level).
	return strings.TrimPrefix(res.Err.Error(), "problem validating schema. Check JSON formatting: ")
}

// TestSchemas validates every object of every overlay against the
// Kubernetes schemas of k8sschema.Version, strictly.
func TestSchemas(t *testing.T) {
	v := newValidator(t)
	for _, ov := range overlays(t) {
		r := render(t, ov)
		if len(r.Objects) == 0 {
			t.Fatalf("%s: nothing rendered", ov)
		}
		for _, o := range r.Objects {
			if why := validate(v, o); why != "" {
				t.Errorf("%s: rule \"valid against the Kubernetes %s schemas\": %s", o.ID, k8sschema.Version, why)
			}
		}
	}
}

// TestSchemaValidationCatchesBreakage checks that the validator refuses
// what the API server would refuse, including a field newer than the
// version the schemas describe (which decodes fine into today's types).
func TestSchemaValidationCatchesBreakage(t *testing.T) {
	v := newValidator(t)
	r := render(t, "prod")
	find := func(id string) object {
		for _, o := range r.Objects {
			if o.ID == id {
				return o
			}
		}
		t.Fatalf("no %s", id)
		return object{}
	}
	cases := []struct {
		breakage, id, old, new string
	}{
		{"a misspelt field", "prod Deployment/customer", "readOnlyRootFilesystem", "readOnlyRootFileSystem"},
		{"a number as text", "prod HorizontalPodAutoscaler/customer", "maxReplicas: 8", `maxReplicas: "8"`},
		{"a field of a later Kubernetes", "prod Job/customer-migrate", "backoffLimit: 3", "backoffLimit: 3\n  managedBy: kueue.x-k8s.io/multikueue"},
		{"a kind without a schema", "prod ServiceAccount/customer", "kind: ServiceAccount", "kind: ServiceAccountX"},
	}
	for _, c := range cases {
		t.Run(c.breakage, func(t *testing.T) {
			o := find(c.id)
			if why := validate(v, o); why != "" {
				t.Fatalf("%s is invalid before the breakage: %s", c.id, why)
			}
			if !bytes.Contains(o.YAML, []byte(c.old)) {
				t.Fatalf("%s has no %q", c.id, c.old)
			}
			o.YAML = bytes.Replace(o.YAML, []byte(c.old), []byte(c.new), 1)
			if why := validate(v, o); why == "" {
				t.Errorf("not caught: %s", c.breakage)
			} else {
				t.Logf("caught: %s", why)
			}
		})
	}
}

// TestSchemasAreGenerated checks that the committed schemas are exactly
// what cmd/k8s-schemas writes from the source document, and nothing else.
func TestSchemasAreGenerated(t *testing.T) {
	doc, err := k8sschema.ReadSource()
	if err != nil {
		t.Fatal(err)
	}
	want, err := k8sschema.Generate(doc, k8sschema.Kinds)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
		b, err := os.ReadFile(filepath.Join(schemaDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := want[e.Name()]; !ok {
			t.Errorf("%s: not generated from any kind in k8sschema.Kinds", e.Name())
		} else if !bytes.Equal(b, w) {
			t.Errorf("%s differs from the generator's output: run GOWORK=off go run ./cmd/k8s-schemas", e.Name())
		}
	}
	if len(got) != len(want) {
		var names []string
		for n := range want {
			names = append(names, n)
		}
		sort.Strings(names)
		t.Errorf("schemas %v, want %v: run GOWORK=off go run ./cmd/k8s-schemas", got, names)
	}
}
