// Package k8sschema turns a Kubernetes OpenAPI v2 document into the
// standalone strict JSON schemas kubeconform validates against, one file
// per kind, laid out as yannh/kubernetes-json-schema lays them out
// (<kind>-<group>-<version>.json) so the kubeconform CLI can use them too.
// It exists because kubeconform ships no schemas and the tests must not
// reach the network: the schemas are generated once from a document in
// the module cache and committed (deploy/manifests/schemas).
package k8sschema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// GVK names one kind: APIVersion is "v1" or "group/version".
type GVK struct{ APIVersion, Kind string }

// FileName is where kubeconform looks for the kind's schema, mirroring its
// registry's KindSuffix rule (the group's first label, then the version).
func (g GVK) FileName() string {
	parts := strings.Split(g.APIVersion, "/")
	suffix := "-" + strings.ToLower(strings.Split(parts[0], ".")[0])
	if len(parts) > 1 {
		suffix += "-" + strings.ToLower(parts[1])
	}
	return strings.ToLower(g.Kind) + suffix + ".json"
}

type swagger struct {
	Definitions map[string]map[string]any `json:"definitions"`
}

// Generate returns one schema per kind, keyed by FileName. Each schema is
// self-contained (the definitions it reaches travel with it under
// "definitions"), strict (every object with properties refuses others, as
// kubectl's validation did), and accepts Kubernetes' int-or-string and
// quantity values either way; descriptions are dropped to keep it small.
func Generate(doc []byte, kinds []GVK) (map[string][]byte, error) {
	var sw swagger
	if err := json.Unmarshal(doc, &sw); err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	out := map[string][]byte{}
	for _, k := range kinds {
		name, err := definitionOf(sw, k)
		if err != nil {
			return nil, err
		}
		defs := map[string]any{}
		if err := collect(sw, name, defs); err != nil {
			return nil, err
		}
		root := map[string]any{"$ref": "#/definitions/" + name, "definitions": defs}
		// The apiVersion and kind must be these (kubeconform picked the file
		// by them; a typo elsewhere in a GVK must not validate).
		root["properties"] = map[string]any{
			"apiVersion": map[string]any{"enum": []string{k.APIVersion}},
			"kind":       map[string]any{"enum": []string{k.Kind}},
		}
		b, err := json.MarshalIndent(root, "", " ")
		if err != nil {
			return nil, err
		}
		out[k.FileName()] = append(b, '\n')
	}
	return out, nil
}

// definitionOf finds the definition carrying the kind's
// x-kubernetes-group-version-kind.
func definitionOf(sw swagger, k GVK) (string, error) {
	group, version, ok := strings.Cut(k.APIVersion, "/")
	if !ok {
		group, version = "", k.APIVersion
	}
	var names []string
	for name := range sw.Definitions {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		gvks, _ := sw.Definitions[name]["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			m, _ := g.(map[string]any)
			if m["group"] == group && m["version"] == version && m["kind"] == k.Kind {
				return name, nil
			}
		}
	}
	return "", fmt.Errorf("no definition for %s %s", k.APIVersion, k.Kind)
}

// collect converts the definition name and every definition it references
// into defs.
func collect(sw swagger, name string, defs map[string]any) error {
	if _, done := defs[name]; done {
		return nil
	}
	if name == Quantity {
		defs[name] = map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}}}
		return nil
	}
	def, ok := sw.Definitions[name]
	if !ok {
		return fmt.Errorf("missing definition %s", name)
	}
	var refs []string
	defs[name] = convert(def, &refs)
	for _, r := range refs {
		if err := collect(sw, r, defs); err != nil {
			return err
		}
	}
	return nil
}

// convert rewrites one schema node (see Generate) and records the
// definitions it references.
func convert(node any, refs *[]string) any {
	switch n := node.(type) {
	case []any:
		out := make([]any, len(n))
		for i, v := range n {
			out[i] = convert(v, refs)
		}
		return out
	case map[string]any:
		if n["format"] == "int-or-string" {
			return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
		}
		out := map[string]any{}
		for k, v := range n {
			switch {
			case strings.HasPrefix(k, "x-kubernetes-"):
				continue
			case k == "description":
				if _, isText := v.(string); isText {
					continue // a property named "description" is a schema, kept
				}
			case k == "$ref":
				ref, _ := v.(string)
				*refs = append(*refs, strings.TrimPrefix(ref, "#/definitions/"))
				out[k] = v
				continue
			case k == "properties":
				props := map[string]any{}
				for p, s := range v.(map[string]any) {
					props[p] = convert(s, refs)
				}
				out[k] = props
				continue
			}
			out[k] = convert(v, refs)
		}
		if _, ok := out["properties"]; ok {
			if _, set := out["additionalProperties"]; !set {
				out["additionalProperties"] = false
			}
		}
		return out
	}
	return node
}

// Quantity is the definition of resource quantities, written as strings
// ("256Mi") or plain numbers (1): Generate accepts both, as the API does.
const Quantity = "io.k8s.apimachinery.pkg.api.resource.Quantity"
