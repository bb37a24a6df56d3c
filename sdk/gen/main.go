// Command publicspec cuts api/openapi.yaml down to the lenders' public API,
// the document both SDKs are generated from:
//
//	publicspec [-prefix /api/v1/] [-skip PATH,...] [-drop-webhooks] api/openapi.yaml public.json
//
// It keeps the paths under the prefix (less those skipped: the SDKs skip
// /api/v1/openapi.yaml, the document itself) and the top-level webhooks
// (with -drop-webhooks only the schemas of their bodies: oapi-codegen would
// otherwise add a client that sends webhooks, of no use to a lender), then
// only the components, security schemes and tags those reach, and writes
// the result as JSON (YAML anchors resolved, key order kept, so the output
// is byte-stable). Cutting by path rather than by tag is what keeps the SDKs
// still while the dashboard, agent and operations APIs change: a new
// /ops/v1 operation, whatever its tags, never reaches them.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

func main() {
	prefix := flag.String("prefix", "/api/v1/", "keep the paths that start with this")
	dropWebhooks := flag.Bool("drop-webhooks", false, "leave out the webhooks but keep the schemas of their bodies")
	skip := flag.String("skip", "", "comma-separated paths to leave out although they start with the prefix")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: publicspec [-prefix /api/v1/] [-skip PATH,...] [-drop-webhooks] IN.yaml OUT.json")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	in, err := os.ReadFile(flag.Arg(0))
	if err == nil {
		var out []byte
		if out, err = Filter(in, Options{Prefix: *prefix, Skip: strings.Split(*skip, ","), DropWebhooks: *dropWebhooks}); err == nil {
			err = os.WriteFile(flag.Arg(1), out, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "publicspec:", err)
		os.Exit(1)
	}
}

// Options say what Filter keeps.
type Options struct {
	Prefix       string   // the paths that start with it
	Skip         []string // less these
	DropWebhooks bool     // without the webhooks, but with their bodies' schemas
}

// Filter returns the OpenAPI document in (YAML or JSON) as indented JSON
// holding only the paths under the prefix (less those skipped), the
// webhooks, and what they reach.
func Filter(in []byte, o Options) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(in, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("not an OpenAPI document (no top-level mapping)")
	}
	root := doc.Content[0]
	paths := get(root, "paths")
	if paths == nil || paths.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("no paths")
	}
	keepEntries(paths, func(path string) bool { return strings.HasPrefix(path, o.Prefix) && !slices.Contains(o.Skip, path) })
	if len(paths.Content) == 0 {
		return nil, fmt.Errorf("no path starts with %q", o.Prefix)
	}
	r := newReach(get(root, "components"))
	r.walk(paths)
	r.walk(get(root, "webhooks"))
	r.walk(get(root, "security"))
	if o.DropWebhooks {
		keepEntries(root, func(key string) bool { return key != "webhooks" })
	}
	if comps := get(root, "components"); comps != nil {
		for i := 0; i < len(comps.Content); i += 2 {
			kind := comps.Content[i].Value
			keepEntries(comps.Content[i+1], func(name string) bool { return r.used[kind][name] })
		}
		keepEntries(comps, func(kind string) bool { return len(get(comps, kind).Content) > 0 })
	}
	if tags := get(root, "tags"); tags != nil && tags.Kind == yaml.SequenceNode {
		tags.Content = slices.DeleteFunc(tags.Content, func(t *yaml.Node) bool {
			name := get(t, "name")
			return name == nil || !r.tags[name.Value]
		})
	}
	var buf bytes.Buffer
	w := jsonWriter{b: &buf, open: map[*yaml.Node]bool{}}
	if err := w.write(root, ""); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// get is the value of key in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return deref(m.Content[i+1])
		}
	}
	return nil
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// keepEntries drops the entries of mapping m whose key keep refuses.
func keepEntries(m *yaml.Node, keep func(string) bool) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	kept := m.Content[:0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if keep(m.Content[i].Value) {
			kept = append(kept, m.Content[i], m.Content[i+1])
		}
	}
	m.Content = kept
}

// reach collects what the kept part of the document uses: components by
// kind and name ($ref), security schemes (security requirements name
// them) and tags.
type reach struct {
	components *yaml.Node
	used       map[string]map[string]bool
	tags       map[string]bool
	seen       map[*yaml.Node]bool
}

func newReach(components *yaml.Node) *reach {
	return &reach{components: components, used: map[string]map[string]bool{}, tags: map[string]bool{}, seen: map[*yaml.Node]bool{}}
}

func (r *reach) use(kind, name string) {
	if r.used[kind] == nil {
		r.used[kind] = map[string]bool{}
	}
	if r.used[kind][name] {
		return
	}
	r.used[kind][name] = true
	r.walk(get(get(r.components, kind), name))
}

func (r *reach) walk(n *yaml.Node) {
	n = deref(n)
	if n == nil || r.seen[n] {
		return
	}
	r.seen[n] = true
	if n.Kind != yaml.MappingNode {
		for _, c := range n.Content {
			r.walk(c)
		}
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i].Value, deref(n.Content[i+1])
		switch {
		case key == "$ref" && val.Kind == yaml.ScalarNode:
			if kind, name, ok := strings.Cut(strings.TrimPrefix(val.Value, "#/components/"), "/"); ok && strings.HasPrefix(val.Value, "#/components/") {
				r.use(kind, name)
			}
		case key == "security" && val.Kind == yaml.SequenceNode:
			for _, req := range val.Content {
				req = deref(req)
				for j := 0; j+1 < len(req.Content); j += 2 {
					r.use("securitySchemes", req.Content[j].Value)
				}
			}
		case key == "tags" && val.Kind == yaml.SequenceNode:
			for _, t := range val.Content {
				if t = deref(t); t.Kind == yaml.ScalarNode {
					r.tags[t.Value] = true
				}
			}
		}
		r.walk(val)
	}
}

// jsonWriter writes YAML nodes as indented JSON, mappings in document
// order, aliases expanded; open holds the nodes being written, so that an
// alias to one of its own ancestors is an error, not an endless document.
type jsonWriter struct {
	b    *bytes.Buffer
	open map[*yaml.Node]bool
}

// maxOutput bounds the JSON written (the public API is about 0.3 MiB): a
// document whose aliases expand without end is refused.
const maxOutput = 32 << 20

func (w jsonWriter) write(n *yaml.Node, indent string) error {
	n = deref(n)
	if w.b.Len() > maxOutput {
		return fmt.Errorf("line %d: the document expands past %d MiB", n.Line, maxOutput>>20)
	}
	if w.open[n] {
		return fmt.Errorf("line %d: a YAML alias refers to a node that contains it", n.Line)
	}
	w.open[n] = true
	defer delete(w.open, n)
	b, inner := w.b, indent+"  "
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteString(",\n")
			}
			key, _ := json.Marshal(n.Content[i].Value)
			b.WriteString(inner)
			b.Write(key)
			b.WriteString(": ")
			if err := w.write(n.Content[i+1], inner); err != nil {
				return err
			}
		}
		b.WriteString("\n" + indent + "}")
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteString("[\n")
		for i, c := range n.Content {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(inner)
			if err := w.write(c, inner); err != nil {
				return err
			}
		}
		b.WriteString("\n" + indent + "]")
	case yaml.ScalarNode:
		return writeScalar(b, n)
	default:
		return fmt.Errorf("line %d: unexpected YAML node kind %v", n.Line, n.Kind)
	}
	return nil
}

// writeScalar writes a scalar as YAML resolves it, except that a timestamp
// stays the string it is written as (OpenAPI has no timestamp type).
func writeScalar(b *bytes.Buffer, n *yaml.Node) error {
	var v any = n.Value
	switch n.ShortTag() {
	case "!!int", "!!float", "!!bool", "!!null":
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	b.Write(out)
	return nil
}
