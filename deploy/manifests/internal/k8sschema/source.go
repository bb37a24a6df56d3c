package k8sschema

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Version is the Kubernetes version the schemas describe: the oldest the
// manifests are meant to apply on. Strict validation against it refuses any
// field a later version added, and the objects also decode strictly into
// the current k8s.io/api types, so they hold from this version on.
const Version = "1.27.0"

// Dir is the schema directory, named as kubeconform's default layout names
// it for Version in strict mode.
const Dir = "v" + Version + "-standalone-strict"

// Kinds are the kinds the overlays render; a kind without a schema fails
// validation, so adding one means adding it here and regenerating.
var Kinds = []GVK{
	{"v1", "ConfigMap"},
	{"v1", "Namespace"},
	{"v1", "Service"},
	{"v1", "ServiceAccount"},
	{"apps/v1", "Deployment"},
	{"batch/v1", "Job"},
	{"autoscaling/v2", "HorizontalPodAutoscaler"},
	{"policy/v1", "PodDisruptionBudget"},
	{"networking.k8s.io/v1", "NetworkPolicy"},
	{"networking.k8s.io/v1", "Ingress"},
}

// sourceModule holds the full Kubernetes v1.27.0 OpenAPI v2 document as
// test data (pkg/schemaconv/testdata/swagger.json); the module is already
// in this module's build (kustomize and kubeconform need it), so it is in
// the module cache wherever these tests build.
const (
	sourceModule = "k8s.io/kube-openapi"
	sourceFile   = "pkg/schemaconv/testdata/swagger.json"
)

// ReadSource reads the OpenAPI document from the module cache, checking
// that it describes Version.
func ReadSource() ([]byte, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", sourceModule)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	dir, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m %s: %w", sourceModule, err)
	}
	b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), sourceFile))
	if err != nil {
		return nil, err
	}
	if !strings.Contains(string(b[:min(len(b), 200)]), `"version": "v`+Version+`"`) {
		return nil, fmt.Errorf("%s %s does not describe Kubernetes v%s", sourceModule, sourceFile, Version)
	}
	return b, nil
}
