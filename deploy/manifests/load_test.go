package manifests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// root is the repository root (this package is deploy/manifests).
const root = "../.."

// target is one line of deploy/Dockerfile's target list.
type target struct{ Name, Module, Package string }

var targetLine = regexp.MustCompile(`^#   target: (\S+)\s+module: (\S+)\s+package: (\S+)\s*$`)

// dockerTargets parses the image targets deploy/Dockerfile can build.
func dockerTargets(t *testing.T) map[string]target {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "deploy/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]target{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if m := targetLine.FindStringSubmatch(sc.Text()); m != nil {
			out[m[1]] = target{Name: m[1], Module: m[2], Package: m[3]}
		}
	}
	if len(out) == 0 {
		t.Fatal("deploy/Dockerfile lists no targets")
	}
	return out
}

// loadCompose loads docker-compose.yml with the compose-spec loader, as
// `docker compose config` would, without any network or engine.
func loadCompose(t *testing.T) *types.Project {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	details := types.ConfigDetails{
		WorkingDir:  abs,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(abs, "docker-compose.yml")}},
		Environment: types.Mapping{},
	}
	p, err := loader.LoadWithContext(context.Background(), details, func(o *loader.Options) {
		o.SetProjectName("kyc", true)
	})
	if err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return p
}

// overlays lists k8s/overlays/*.
func overlays(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(root, "k8s/overlays/*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no overlays under k8s/overlays: %v", err)
	}
	var out []string
	for _, d := range dirs {
		out = append(out, filepath.Base(d))
	}
	sort.Strings(out)
	return out
}

// rendered is one overlay's objects, decoded into their Kubernetes types.
type rendered struct {
	Overlay         string
	Deployments     map[string]*appsv1.Deployment
	Services        map[string]*corev1.Service
	ServiceAccounts map[string]*corev1.ServiceAccount
	ConfigMaps      map[string]*corev1.ConfigMap
	HPAs            map[string]*autoscalingv2.HorizontalPodAutoscaler
	PDBs            map[string]*policyv1.PodDisruptionBudget
	NetworkPolicies map[string]*networkingv1.NetworkPolicy
	Ingresses       map[string]*networkingv1.Ingress
	Jobs            map[string]*batchv1.Job
	Namespaces      map[string]*corev1.Namespace
	Secrets         []string
	// Objects are every rendered object as YAML, for schema validation.
	Objects []object
}

// object is one rendered object: "<overlay> <Kind>/<name>" and its YAML.
type object struct {
	ID   string
	YAML []byte
}

// render builds k8s/overlays/<overlay> in process with the kustomize API
// and decodes every object strictly (an unknown field fails) into its type.
func render(t *testing.T, overlay string) *rendered {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join(root, "k8s/overlays", overlay))
	if err != nil {
		t.Fatalf("kustomize build k8s/overlays/%s: %v", overlay, err)
	}
	r := &rendered{Overlay: overlay,
		Deployments: map[string]*appsv1.Deployment{}, Services: map[string]*corev1.Service{},
		ServiceAccounts: map[string]*corev1.ServiceAccount{}, ConfigMaps: map[string]*corev1.ConfigMap{},
		HPAs: map[string]*autoscalingv2.HorizontalPodAutoscaler{}, PDBs: map[string]*policyv1.PodDisruptionBudget{},
		NetworkPolicies: map[string]*networkingv1.NetworkPolicy{}, Ingresses: map[string]*networkingv1.Ingress{},
		Jobs: map[string]*batchv1.Job{}, Namespaces: map[string]*corev1.Namespace{}}
	for _, res := range resMap.Resources() {
		y, err := res.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		gvk := res.GetGvk()
		id := fmt.Sprintf("%s %s/%s", overlay, gvk.Kind, res.GetName())
		r.Objects = append(r.Objects, object{ID: id, YAML: y})
		var obj any
		switch gvk.ApiVersion() + " " + gvk.Kind {
		case "apps/v1 Deployment":
			o := &appsv1.Deployment{}
			r.Deployments[res.GetName()], obj = o, o
		case "v1 Service":
			o := &corev1.Service{}
			r.Services[res.GetName()], obj = o, o
		case "v1 ServiceAccount":
			o := &corev1.ServiceAccount{}
			r.ServiceAccounts[res.GetName()], obj = o, o
		case "v1 ConfigMap":
			o := &corev1.ConfigMap{}
			r.ConfigMaps[res.GetName()], obj = o, o
		case "autoscaling/v2 HorizontalPodAutoscaler":
			o := &autoscalingv2.HorizontalPodAutoscaler{}
			r.HPAs[res.GetName()], obj = o, o
		case "policy/v1 PodDisruptionBudget":
			o := &policyv1.PodDisruptionBudget{}
			r.PDBs[res.GetName()], obj = o, o
		case "networking.k8s.io/v1 NetworkPolicy":
			o := &networkingv1.NetworkPolicy{}
			r.NetworkPolicies[res.GetName()], obj = o, o
		case "networking.k8s.io/v1 Ingress":
			o := &networkingv1.Ingress{}
			r.Ingresses[res.GetName()], obj = o, o
		case "batch/v1 Job":
			o := &batchv1.Job{}
			r.Jobs[res.GetName()], obj = o, o
		case "v1 Namespace":
			o := &corev1.Namespace{}
			r.Namespaces[res.GetName()], obj = o, o
		case "v1 Secret":
			r.Secrets = append(r.Secrets, res.GetName())
			continue
		default:
			t.Errorf("%s: kind %s is not one the tests know (add it to render)", id, gvk.ApiVersion()+" "+gvk.Kind)
			continue
		}
		if err := strictDecode(y, obj); err != nil {
			t.Errorf("%s: does not decode strictly into its Kubernetes type: %v", id, err)
		}
	}
	return r
}

// strictDecode converts YAML to JSON and decodes it refusing unknown fields
// (a misspelt or misplaced key fails instead of being silently dropped).
func strictDecode(y []byte, into any) error {
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

// parseEnvFile reads KEY=VALUE lines (kustomize's envs format).
func parseEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		out[k] = v
	}
	return out
}
