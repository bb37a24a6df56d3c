// Command k8s-schemas writes the Kubernetes JSON schemas the manifest tests
// validate against into deploy/manifests/schemas, from the Kubernetes
// OpenAPI document in the module cache (see schemas/README.md):
//
//	cd deploy/manifests && GOWORK=off go run ./cmd/k8s-schemas
//
// TestSchemasAreGenerated fails when the committed files differ from what
// this writes.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kycfield/kyc/deploy/manifests/internal/k8sschema"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "k8s-schemas:", err)
		os.Exit(1)
	}
}

func run() error {
	doc, err := k8sschema.ReadSource()
	if err != nil {
		return err
	}
	files, err := k8sschema.Generate(doc, k8sschema.Kinds)
	if err != nil {
		return err
	}
	dir := filepath.Join("schemas", k8sschema.Dir)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("wrote %d schemas to %s\n", len(files), dir)
	return nil
}
