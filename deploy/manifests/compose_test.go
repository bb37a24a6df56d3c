package manifests

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
	"sigs.k8s.io/yaml"

	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/stack"
)

// TestDockerfileTargets checks that deploy/Dockerfile lists exactly the
// registry's components and that each target's module and main package
// exist (what the image build resolves SERVICE to).
func TestDockerfileTargets(t *testing.T) {
	targets := dockerTargets(t)
	var names, want []string
	for n := range targets {
		names = append(names, n)
	}
	for _, s := range stack.All() {
		want = append(want, s.Name)
	}
	sort.Strings(names)
	sort.Strings(want)
	if !slices.Equal(names, want) {
		t.Errorf("deploy/Dockerfile: rule \"one target per registry component\": targets %v, registry %v", names, want)
	}
	for _, tg := range targets {
		mod := filepath.Join(root, tg.Module)
		if _, err := os.Stat(filepath.Join(mod, "go.mod")); err != nil {
			t.Errorf("deploy/Dockerfile target %s: rule \"module has a go.mod\": %v", tg.Name, err)
		}
		files, _ := filepath.Glob(filepath.Join(mod, tg.Package, "*.go"))
		main := false
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err == nil && (strings.Contains(string(b), "\npackage main\n") || strings.HasPrefix(string(b), "package main\n")) {
				main = true
			}
		}
		if !main {
			t.Errorf("deploy/Dockerfile target %s: rule \"package is a main package\": none in %s/%s", tg.Name, tg.Module, tg.Package)
		}
	}
}

// needsSetting reports whether a variable must be set in a container: it
// has no default, or its default points at the machine's loopback (right
// for `make run`, wrong in a container).
func needsSetting(v Var) bool {
	return !v.HasDefault || strings.Contains(v.Default, "127.0.0.1")
}

// composeRule is one rule every component's compose service must keep.
type composeRule struct {
	name  string
	check func(p *types.Project, s platform.Service, svc types.ServiceConfig) error
}

func composeEnv(svc types.ServiceConfig) map[string]string {
	out := map[string]string{}
	for k, v := range svc.Environment {
		if v != nil {
			out[k] = *v
		}
	}
	return out
}

var composeRules = []composeRule{
	{"built from deploy/Dockerfile with its own target", func(_ *types.Project, s platform.Service, svc types.ServiceConfig) error {
		b := svc.Build
		if b == nil || filepath.ToSlash(b.Dockerfile) != "deploy/Dockerfile" && !strings.HasSuffix(filepath.ToSlash(b.Dockerfile), "/deploy/Dockerfile") {
			return fmt.Errorf("build %+v: want dockerfile deploy/Dockerfile", b)
		}
		if arg := b.Args["SERVICE"]; arg == nil || *arg != s.Name {
			return fmt.Errorf("build arg SERVICE %v, want %q", b.Args["SERVICE"], s.Name)
		}
		if !strings.HasPrefix(svc.Image, "kyc/"+s.Name+":") {
			return fmt.Errorf("image %q: want kyc/%s:<tag>, the name make images tags", svc.Image, s.Name)
		}
		return nil
	}},
	{"health check on /readyz at the registry port", func(_ *types.Project, s platform.Service, svc types.ServiceConfig) error {
		h := svc.HealthCheck
		if h == nil || h.Disable || len(h.Test) < 2 {
			return fmt.Errorf("no healthcheck")
		}
		want := fmt.Sprintf("http://127.0.0.1:%d/readyz", s.Port)
		if !slices.Equal(h.Test, []string{"CMD", "/healthcheck", want}) {
			return fmt.Errorf("healthcheck %v, want [CMD /healthcheck %s]", h.Test, want)
		}
		return nil
	}},
	{"waits for its stores to be healthy", func(_ *types.Project, s platform.Service, svc types.ServiceConfig) error {
		env := composeEnv(svc)
		var need []string
		if s.Database != "" {
			need = append(need, "postgres")
		}
		need = append(need, "kafka")
		if s.Bucket != "" {
			need = append(need, "minio")
		}
		if _, ok := env["REDIS_URL"]; ok {
			need = append(need, "redis")
		}
		for _, dep := range need {
			d, ok := svc.DependsOn[dep]
			if !ok || d.Condition != types.ServiceConditionHealthy {
				return fmt.Errorf("depends_on %s: want condition service_healthy, got %+v", dep, d)
			}
		}
		return nil
	}},
	{"read-only root, /tmp writable, no capabilities", func(_ *types.Project, _ platform.Service, svc types.ServiceConfig) error {
		if !svc.ReadOnly {
			return fmt.Errorf("read_only is not true")
		}
		if !slices.ContainsFunc(svc.Tmpfs, func(s string) bool { return strings.HasPrefix(s, "/tmp") }) {
			return fmt.Errorf("no tmpfs on /tmp")
		}
		if !slices.Equal(svc.CapDrop, []string{"ALL"}) || len(svc.CapAdd) > 0 {
			return fmt.Errorf("cap_drop %v cap_add %v: want [ALL] and none", svc.CapDrop, svc.CapAdd)
		}
		return nil
	}},
	{"every variable without a container-safe default is set, and only variables the Config reads", func(_ *types.Project, s platform.Service, svc types.ServiceConfig) error {
		env := composeEnv(svc)
		read := map[string]bool{}
		var errs []string
		for _, v := range Vars(Configs[s.Name]) {
			read[v.Name] = true
			if _, ok := env[v.Name]; !ok && needsSetting(v) {
				errs = append(errs, v.Name+" is not set")
			}
		}
		for k := range env {
			if !read[k] && !extraVar(k) {
				errs = append(errs, k+" is read by nothing")
			}
		}
		if p, err := portOf(env["HTTP_ADDR"]); err != nil || p != s.Port {
			errs = append(errs, fmt.Sprintf("HTTP_ADDR %q: want port %d", env["HTTP_ADDR"], s.Port))
		}
		sort.Strings(errs)
		if len(errs) > 0 {
			return fmt.Errorf("%s", strings.Join(errs, "; "))
		}
		return nil
	}},
}

// TestCompose loads docker-compose.yml with the compose-spec loader and
// checks the stores, then every rule on every component.
func TestCompose(t *testing.T) {
	p := loadCompose(t)
	stores := []struct{ name, rule string }{
		{"postgres", "PostgreSQL with a health check"},
		{"redis", "Redis with a health check"},
		{"kafka", "Kafka with a health check"},
		{"minio", "MinIO with a health check"},
	}
	for _, st := range stores {
		svc, err := p.GetService(st.name)
		if err != nil {
			t.Errorf("compose %s: rule %q: %v", st.name, st.rule, err)
			continue
		}
		if svc.HealthCheck == nil || len(svc.HealthCheck.Test) == 0 {
			t.Errorf("compose %s: rule %q: no healthcheck", st.name, st.rule)
		}
	}
	if k, err := p.GetService("kafka"); err == nil {
		env := composeEnv(k)
		if !strings.Contains(env["KAFKA_PROCESS_ROLES"], "controller") || env["KAFKA_CONTROLLER_QUORUM_VOTERS"] == "" {
			t.Errorf("compose kafka: rule \"KRaft mode (no ZooKeeper)\": KAFKA_PROCESS_ROLES=%q", env["KAFKA_PROCESS_ROLES"])
		}
	}
	for _, name := range []string{"otel-collector", "jaeger"} {
		if _, err := p.GetService(name); err != nil {
			t.Errorf("compose %s: rule \"traces reach Jaeger through a collector\": %v", name, err)
		}
	}
	for _, svc := range p.Services {
		for _, v := range svc.Volumes {
			if v.Type != types.VolumeTypeBind {
				continue
			}
			if _, err := os.Stat(v.Source); err != nil {
				t.Errorf("compose %s: rule \"bind mounts exist in the repository\": %v", svc.Name, err)
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "deploy/otel/collector.yaml")); err != nil {
		t.Errorf("compose otel-collector: rule \"collector configuration\": %v", err)
	} else {
		var cfg struct {
			Service struct {
				Pipelines map[string]struct{ Receivers, Exporters []string }
			}
			Exporters map[string]struct{ Endpoint string }
		}
		if err := yaml.Unmarshal(b, &cfg); err != nil { // only these fields matter
			t.Errorf("deploy/otel/collector.yaml: %v", err)
		}
		tr := cfg.Service.Pipelines["traces"]
		if !slices.Contains(tr.Receivers, "otlp") || len(tr.Exporters) == 0 ||
			!strings.HasPrefix(cfg.Exporters[tr.Exporters[0]].Endpoint, "jaeger:") {
			t.Errorf("compose otel-collector: rule \"OTLP traces are forwarded to Jaeger\": %+v %+v", tr, cfg.Exporters)
		}
	}
	for _, s := range stack.All() {
		svc, err := p.GetService(s.Name)
		if err != nil {
			t.Errorf("compose: rule \"every registry component runs\": %v", err)
			continue
		}
		for _, rule := range composeRules {
			if err := rule.check(p, s, svc); err != nil {
				t.Errorf("compose %s: rule %q: %v", s.Name, rule.name, err)
			}
		}
	}

	gw, err := p.GetService(stack.Gateway.Name)
	if err != nil {
		t.Fatal(err)
	}
	ups := map[string]string{}
	for _, kv := range strings.Split(composeEnv(gw)["UPSTREAMS"], ",") {
		k, v, _ := strings.Cut(kv, "=")
		ups[k] = v
	}
	for _, s := range stack.Services {
		if want := fmt.Sprintf("http://%s:%d", s.Name, s.Port); ups[s.Name] != want {
			t.Errorf("compose gateway: rule \"UPSTREAMS names every service\": %s=%q, want %q", s.Name, ups[s.Name], want)
		}
		if d, ok := gw.DependsOn[s.Name]; !ok || d.Condition != types.ServiceConditionHealthy {
			t.Errorf("compose gateway: rule \"starts after healthy services\": depends_on %s %+v", s.Name, d)
		}
	}
	if !slices.ContainsFunc(gw.Ports, func(pc types.ServicePortConfig) bool { return pc.Target == uint32(stack.Gateway.Port) }) {
		t.Errorf("compose gateway: rule \"publishes port %d\": ports %+v", stack.Gateway.Port, gw.Ports)
	}
	rep, _ := p.GetService("reporting")
	v, _ := stack.Find("verification")
	if got, want := composeEnv(rep)["VERIFICATION_URL"], fmt.Sprintf("http://%s:%d", v.Name, v.Port); got != want {
		t.Errorf("compose reporting: rule \"VERIFICATION_URL is the verification service\": %q, want %q", got, want)
	}
	c, _ := stack.Find("customer")
	if got, want := composeEnv(rep)["CUSTOMER_URL"], fmt.Sprintf("http://%s:%d", c.Name, c.Port); got != want {
		t.Errorf("compose reporting: rule \"CUSTOMER_URL is the customer service\": %q, want %q", got, want)
	}
}

// TestComposeMigrations checks that each service with a database has a
// one-shot migration container with exactly its image and environment, and
// starts only once that container has completed successfully.
func TestComposeMigrations(t *testing.T) {
	p := loadCompose(t)
	jobs := 0
	for _, s := range stack.All() {
		svc, err := p.GetService(s.Name)
		if err != nil {
			continue // TestCompose reports it
		}
		name := s.Name + "-migrate"
		mig, err := p.GetService(name)
		if s.Database == "" {
			if err == nil {
				t.Errorf("compose %s: rule \"no migration without a database\": %s exists", s.Name, name)
			}
			continue
		}
		jobs++
		if err != nil {
			t.Errorf("compose %s: rule \"a migration container per service with a database\": %v", s.Name, err)
			continue
		}
		if d, ok := svc.DependsOn[name]; !ok || d.Condition != types.ServiceConditionCompletedSuccessfully {
			t.Errorf("compose %s: rule \"starts after its migration succeeded\": depends_on %s %+v", s.Name, name, d)
		}
		if mig.Image != svc.Image {
			t.Errorf("compose %s: rule \"the service's image\": %s, the service runs %s", name, mig.Image, svc.Image)
		}
		if !slices.Equal(mig.Command, []string{"-migrate-only"}) || len(mig.Entrypoint) > 0 {
			t.Errorf("compose %s: rule \"runs -migrate-only\": entrypoint %v command %v", name, mig.Entrypoint, mig.Command)
		}
		if mig.Restart != types.RestartPolicyNo {
			t.Errorf("compose %s: rule \"one-shot\": restart %q, want \"no\"", name, mig.Restart)
		}
		if !reflect.DeepEqual(composeEnv(mig), composeEnv(svc)) {
			t.Errorf("compose %s: rule \"the service's environment\": %v, the service has %v", name, composeEnv(mig), composeEnv(svc))
		}
		if d, ok := mig.DependsOn["postgres"]; !ok || d.Condition != types.ServiceConditionHealthy {
			t.Errorf("compose %s: rule \"waits for a healthy PostgreSQL\": %+v", name, mig.DependsOn)
		}
		if h := mig.HealthCheck; h != nil && !h.Disable {
			t.Errorf("compose %s: rule \"no health check (it serves nothing)\": %+v", name, h)
		}
		if len(mig.Ports) > 0 {
			t.Errorf("compose %s: rule \"publishes nothing\": %+v", name, mig.Ports)
		}
		for _, rule := range composeRules {
			if rule.name == "read-only root, /tmp writable, no capabilities" {
				if err := rule.check(p, s, mig); err != nil {
					t.Errorf("compose %s: rule %q: %v", name, rule.name, err)
				}
			}
		}
	}
	if jobs == 0 {
		t.Error("no service of the registry has a database: the registry did not load")
	}
}
