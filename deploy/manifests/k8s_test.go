package manifests

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/stack"
)

// setVar is how a container gets one environment variable.
type setVar struct {
	Value  string // literal or ConfigMap value ("" for secrets and field refs)
	Secret bool   // from a secretKeyRef
	Source string // where it was set, for messages
}

// containerEnv resolves a container's environment: envFrom ConfigMaps (by
// their rendered, hash-suffixed names), then env (later wins, as in the
// kubelet). A ConfigMap that is not rendered is an error; so is envFrom of
// a whole Secret (secrets are referenced key by key).
func containerEnv(r *rendered, c corev1.Container) (map[string]setVar, error) {
	out := map[string]setVar{}
	var errs []error
	for _, ef := range c.EnvFrom {
		switch {
		case ef.ConfigMapRef != nil:
			cm, ok := r.ConfigMaps[ef.ConfigMapRef.Name]
			if !ok {
				errs = append(errs, fmt.Errorf("envFrom ConfigMap %s is not in the overlay", ef.ConfigMapRef.Name))
				continue
			}
			for k, v := range cm.Data {
				out[k] = setVar{Value: v, Source: "ConfigMap " + cm.Name}
			}
		case ef.SecretRef != nil:
			errs = append(errs, fmt.Errorf("envFrom Secret %s: reference secret keys one by one", ef.SecretRef.Name))
		}
	}
	for _, e := range c.Env {
		v := setVar{Value: e.Value, Source: "env"}
		if e.ValueFrom != nil {
			switch {
			case e.ValueFrom.SecretKeyRef != nil:
				v = setVar{Secret: true, Source: "Secret " + e.ValueFrom.SecretKeyRef.Name}
			case e.ValueFrom.ConfigMapKeyRef != nil:
				cm, ok := r.ConfigMaps[e.ValueFrom.ConfigMapKeyRef.Name]
				if !ok {
					errs = append(errs, fmt.Errorf("env %s: ConfigMap %s is not in the overlay", e.Name, e.ValueFrom.ConfigMapKeyRef.Name))
				} else {
					v = setVar{Value: cm.Data[e.ValueFrom.ConfigMapKeyRef.Key], Source: "ConfigMap " + cm.Name}
				}
			default:
				v = setVar{Source: "fieldRef"}
			}
		}
		out[e.Name] = v
	}
	return out, errors.Join(errs...)
}

// extraVars are read outside a Config struct: the Go runtime and the
// OpenTelemetry SDK.
func extraVar(name string) bool { return name == "GOMEMLIMIT" || strings.HasPrefix(name, "OTEL_") }

// mainContainer is the container named after the component.
func mainContainer(d *appsv1.Deployment) (*corev1.Container, error) {
	for i := range d.Spec.Template.Spec.Containers {
		if c := &d.Spec.Template.Spec.Containers[i]; c.Name == d.Name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("no container named %s", d.Name)
}

func portOf(addr string) (int, error) {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(p)
}

// lockedDown checks every container of a pod: non-root, read-only root
// filesystem, no privilege escalation, not privileged, all capabilities
// dropped and none added.
func lockedDown(spec corev1.PodSpec) error {
	var errs []error
	all := append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...)
	for _, c := range all {
		sc := c.SecurityContext
		switch {
		case sc == nil:
			errs = append(errs, fmt.Errorf("container %s: no securityContext", c.Name))
		case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
			errs = append(errs, fmt.Errorf("container %s: runAsNonRoot is not true", c.Name))
		case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
			errs = append(errs, fmt.Errorf("container %s: readOnlyRootFilesystem is not true", c.Name))
		case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
			errs = append(errs, fmt.Errorf("container %s: allowPrivilegeEscalation is not false", c.Name))
		case sc.Privileged != nil && *sc.Privileged:
			errs = append(errs, fmt.Errorf("container %s: privileged", c.Name))
		case sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) > 0:
			errs = append(errs, fmt.Errorf("container %s: capabilities must drop [ALL] and add none", c.Name))
		}
	}
	return errors.Join(errs...)
}

// deploymentRule is one rule every component's Deployment must keep.
type deploymentRule struct {
	name  string
	check func(r *rendered, s platform.Service, d *appsv1.Deployment) error
}

var deploymentRules = []deploymentRule{
	{"selector matches the pod template (the API server refuses it otherwise)", func(_ *rendered, s platform.Service, d *appsv1.Deployment) error {
		sel := d.Spec.Selector
		if sel == nil || len(sel.MatchLabels) == 0 {
			return errors.New("no spec.selector.matchLabels")
		}
		for k, v := range sel.MatchLabels {
			if d.Spec.Template.Labels[k] != v {
				return fmt.Errorf("selector %s=%s not on the pod template (labels %v)", k, v, d.Spec.Template.Labels)
			}
		}
		if d.Spec.Template.Labels["app.kubernetes.io/name"] != s.Name {
			return fmt.Errorf("pod label app.kubernetes.io/name=%q, want %q (NetworkPolicies select on it)", d.Spec.Template.Labels["app.kubernetes.io/name"], s.Name)
		}
		return nil
	}},
	{"pod runs as non-root with the runtime seccomp profile", func(_ *rendered, _ platform.Service, d *appsv1.Deployment) error {
		sc := d.Spec.Template.Spec.SecurityContext
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
			return errors.New("spec.template.spec.securityContext.runAsNonRoot is not true")
		}
		if sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			return errors.New("seccompProfile is not RuntimeDefault")
		}
		return nil
	}},
	{"every container is locked down (non-root, read-only root, no escalation, no capabilities)", func(_ *rendered, _ platform.Service, d *appsv1.Deployment) error {
		return lockedDown(d.Spec.Template.Spec)
	}},
	{"requests and limits for cpu and memory", func(_ *rendered, _ platform.Service, d *appsv1.Deployment) error {
		var errs []error
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				req, okr := c.Resources.Requests[res]
				lim, okl := c.Resources.Limits[res]
				if !okr || !okl {
					errs = append(errs, fmt.Errorf("container %s: %s request and limit must both be set", c.Name, res))
				} else if req.Cmp(lim) > 0 {
					errs = append(errs, fmt.Errorf("container %s: %s request %s above limit %s", c.Name, res, req.String(), lim.String()))
				}
			}
		}
		return errors.Join(errs...)
	}},
	{"GOMEMLIMIT follows the memory limit", func(_ *rendered, _ platform.Service, d *appsv1.Deployment) error {
		c, err := mainContainer(d)
		if err != nil {
			return err
		}
		for _, e := range c.Env {
			if e.Name == "GOMEMLIMIT" {
				f := e.ValueFrom
				if f == nil || f.ResourceFieldRef == nil || f.ResourceFieldRef.Resource != "limits.memory" {
					return errors.New("GOMEMLIMIT must come from resourceFieldRef limits.memory")
				}
				// A divisor would turn bytes into MiB, which GOMEMLIMIT
				// would read as bytes.
				if d := f.ResourceFieldRef.Divisor; !d.IsZero() && d.Cmp(resource.MustParse("1")) != 0 {
					return fmt.Errorf("GOMEMLIMIT divisor %s: GOMEMLIMIT reads a plain number as bytes", d.String())
				}
				return nil
			}
		}
		return errors.New("GOMEMLIMIT is not set")
	}},
	{"probes: startup and liveness on /healthz, readiness on /readyz, on the service port", func(_ *rendered, s platform.Service, d *appsv1.Deployment) error {
		c, err := mainContainer(d)
		if err != nil {
			return err
		}
		port := ""
		for _, p := range c.Ports {
			if int(p.ContainerPort) == s.Port {
				port = p.Name
			}
		}
		if port == "" {
			return fmt.Errorf("no container port %d (the registry's)", s.Port)
		}
		for _, pr := range []struct {
			kind, path string
			p          *corev1.Probe
		}{{"startupProbe", "/healthz", c.StartupProbe}, {"livenessProbe", "/healthz", c.LivenessProbe}, {"readinessProbe", "/readyz", c.ReadinessProbe}} {
			if pr.p == nil || pr.p.HTTPGet == nil {
				return fmt.Errorf("%s: missing or not httpGet", pr.kind)
			}
			if pr.p.HTTPGet.Path != pr.path {
				return fmt.Errorf("%s: path %s, want %s", pr.kind, pr.p.HTTPGet.Path, pr.path)
			}
			if hp := pr.p.HTTPGet.Port; hp.String() != port && hp.IntValue() != s.Port {
				return fmt.Errorf("%s: port %s, want %s (%d)", pr.kind, hp.String(), port, s.Port)
			}
		}
		return nil
	}},
	{"/tmp is a sized emptyDir (the root filesystem is read-only)", func(_ *rendered, _ platform.Service, d *appsv1.Deployment) error {
		c, err := mainContainer(d)
		if err != nil {
			return err
		}
		for _, m := range c.VolumeMounts {
			if m.MountPath != "/tmp" {
				continue
			}
			for _, v := range d.Spec.Template.Spec.Volumes {
				if v.Name == m.Name {
					if v.EmptyDir == nil || v.EmptyDir.SizeLimit == nil {
						return fmt.Errorf("volume %s on /tmp is not an emptyDir with a sizeLimit", v.Name)
					}
					return nil
				}
			}
			return fmt.Errorf("volume %s is not declared", m.Name)
		}
		return errors.New("nothing mounted on /tmp")
	}},
	{"image names a Dockerfile target for this component", func(_ *rendered, s platform.Service, d *appsv1.Deployment) error {
		c, err := mainContainer(d)
		if err != nil {
			return err
		}
		repo, tag, ok := strings.Cut(c.Image, ":")
		if !ok || tag == "" || tag == "latest" {
			return fmt.Errorf("image %s: pin a tag (not latest)", c.Image)
		}
		if got := repo[strings.LastIndex(repo, "/")+1:]; got != s.Name {
			return fmt.Errorf("image %s: built from target %q, want %q", c.Image, got, s.Name)
		}
		return nil
	}},
	{"own ServiceAccount without an API token", func(r *rendered, s platform.Service, d *appsv1.Deployment) error {
		spec := d.Spec.Template.Spec
		if spec.ServiceAccountName != s.Name {
			return fmt.Errorf("serviceAccountName %q, want %q", spec.ServiceAccountName, s.Name)
		}
		if _, ok := r.ServiceAccounts[s.Name]; !ok {
			return fmt.Errorf("ServiceAccount %s is not in the overlay", s.Name)
		}
		if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
			return errors.New("automountServiceAccountToken is not false")
		}
		return nil
	}},
	{"termination grace outlasts SHUTDOWN_DELAY plus SHUTDOWN_TIMEOUT", func(r *rendered, _ platform.Service, d *appsv1.Deployment) error {
		c, err := mainContainer(d)
		if err != nil {
			return err
		}
		env, err := containerEnv(r, *c)
		if err != nil {
			return err
		}
		drain, err := time.ParseDuration(env["SHUTDOWN_TIMEOUT"].Value)
		if err != nil {
			return fmt.Errorf("SHUTDOWN_TIMEOUT: %v", err)
		}
		linger, err := time.ParseDuration(env["SHUTDOWN_DELAY"].Value)
		if err != nil {
			return fmt.Errorf("SHUTDOWN_DELAY: %v", err)
		}
		g := d.Spec.Template.Spec.TerminationGracePeriodSeconds
		if g == nil || time.Duration(*g)*time.Second <= linger+drain {
			return fmt.Errorf("terminationGracePeriodSeconds must exceed SHUTDOWN_DELAY %s plus SHUTDOWN_TIMEOUT %s", linger, drain)
		}
		return nil
	}},
	{"every variable the Config reads is set, nothing else, secrets only from Secrets", func(r *rendered, s platform.Service, d *appsv1.Deployment) error {
		c, err := mainContainer(d)
		if err != nil {
			return err
		}
		env, err := containerEnv(r, *c)
		if err != nil {
			return err
		}
		cfg, ok := Configs[s.Name]
		if !ok {
			return fmt.Errorf("no Config known for %s (add it to Configs)", s.Name)
		}
		var errs []error
		read := map[string]bool{}
		for _, v := range Vars(cfg) {
			read[v.Name] = true
			got, ok := env[v.Name]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("%s is not set", v.Name))
			case v.Secret && !got.Secret:
				errs = append(errs, fmt.Errorf("%s is a secret but comes from %s", v.Name, got.Source))
			}
		}
		for name, v := range env {
			if !read[name] && !extraVar(name) {
				errs = append(errs, fmt.Errorf("%s (from %s) is read by nothing", name, v.Source))
			}
		}
		if p, err := portOf(env["HTTP_ADDR"].Value); err != nil || p != s.Port {
			errs = append(errs, fmt.Errorf("HTTP_ADDR %q: want port %d", env["HTTP_ADDR"].Value, s.Port))
		}
		return errors.Join(errs...)
	}},
}

// TestDeployments checks every rule on every component's Deployment in
// every overlay.
func TestDeployments(t *testing.T) {
	for _, ov := range overlays(t) {
		r := render(t, ov)
		for _, s := range stack.All() {
			d, ok := r.Deployments[s.Name]
			if !ok {
				t.Errorf("%s: no Deployment %s", ov, s.Name)
				continue
			}
			for _, rule := range deploymentRules {
				if err := rule.check(r, s, d); err != nil {
					t.Errorf("%s Deployment/%s: rule %q: %v", ov, s.Name, rule.name, err)
				}
			}
		}
		if len(r.Deployments) != len(stack.All()) {
			t.Errorf("%s: %d Deployments for %d components of the registry", ov, len(r.Deployments), len(stack.All()))
		}
	}
}

// TestCompanions checks each component's Service, HPA and PDB and that no
// overlay carries a Secret.
func TestCompanions(t *testing.T) {
	for _, ov := range overlays(t) {
		r := render(t, ov)
		if len(r.Secrets) > 0 {
			t.Errorf("%s: renders Secrets %v: reference them, never ship them", ov, r.Secrets)
		}
		for _, s := range stack.All() {
			d := r.Deployments[s.Name]
			if d == nil {
				continue // TestDeployments reports it
			}
			podLabels := d.Spec.Template.Labels
			matches := func(sel map[string]string) bool {
				if len(sel) == 0 {
					return false
				}
				for k, v := range sel {
					if podLabels[k] != v {
						return false
					}
				}
				return true
			}
			id := ov + " " + s.Name
			if svc, ok := r.Services[s.Name]; !ok {
				t.Errorf("%s: rule \"a Service\": no Service", id)
			} else {
				if !matches(svc.Spec.Selector) {
					t.Errorf("%s Service/%s: rule \"selects the pods\": selector %v does not match %v", ov, s.Name, svc.Spec.Selector, podLabels)
				}
				found := false
				for _, p := range svc.Spec.Ports {
					found = found || (int(p.Port) == s.Port && p.Name == "http")
				}
				if !found {
					t.Errorf("%s Service/%s: rule \"registry port\": no port named http on %d", ov, s.Name, s.Port)
				}
			}
			if h, ok := r.HPAs[s.Name]; !ok {
				t.Errorf("%s: rule \"an HPA\": no HorizontalPodAutoscaler", id)
			} else if d.Spec.Replicas != nil {
				t.Errorf("%s Deployment/%s: rule \"the HPA owns the replica count\": spec.replicas is set (each apply would reset it)", ov, s.Name)
			} else if h.Spec.ScaleTargetRef.Kind != "Deployment" || h.Spec.ScaleTargetRef.Name != s.Name ||
				h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 1 || h.Spec.MaxReplicas < *h.Spec.MinReplicas {
				t.Errorf("%s HorizontalPodAutoscaler/%s: rule \"scales its Deployment within sane bounds\": %+v", ov, s.Name, h.Spec)
			}
			if p, ok := r.PDBs[s.Name]; !ok {
				t.Errorf("%s: rule \"a PDB\": no PodDisruptionBudget", id)
			} else if p.Spec.Selector == nil || !matches(p.Spec.Selector.MatchLabels) {
				t.Errorf("%s PodDisruptionBudget/%s: rule \"selects the pods\": %v", ov, s.Name, p.Spec.Selector)
			}
		}
	}
}

// gatewayEnv is the rendered environment of the gateway container.
func componentEnv(t *testing.T, r *rendered, name string) map[string]setVar {
	t.Helper()
	d, ok := r.Deployments[name]
	if !ok {
		t.Fatalf("%s: no Deployment %s", r.Overlay, name)
	}
	c, err := mainContainer(d)
	if err != nil {
		t.Fatal(err)
	}
	env, err := containerEnv(r, *c)
	if err != nil {
		t.Fatalf("%s Deployment/%s: %v", r.Overlay, name, err)
	}
	return env
}

// TestWiring checks the addresses components use to reach each other, and
// the Ingress in front of the gateway.
func TestWiring(t *testing.T) {
	for _, ov := range overlays(t) {
		r := render(t, ov)
		gw := componentEnv(t, r, stack.Gateway.Name)
		ups := map[string]string{}
		for _, kv := range strings.Split(gw["UPSTREAMS"].Value, ",") {
			k, v, _ := strings.Cut(kv, "=")
			ups[k] = v
		}
		for _, s := range stack.Services {
			if want := fmt.Sprintf("http://%s:%d", s.Name, s.Port); ups[s.Name] != want {
				t.Errorf("%s gateway: rule \"UPSTREAMS names every service at its Service\": %s=%q, want %q", ov, s.Name, ups[s.Name], want)
			}
		}
		v, _ := stack.Find("verification")
		if got, want := componentEnv(t, r, "reporting")["VERIFICATION_URL"].Value, fmt.Sprintf("http://%s:%d", v.Name, v.Port); got != want {
			t.Errorf("%s reporting: rule \"VERIFICATION_URL is the verification Service\": %q, want %q", ov, got, want)
		}
		c, _ := stack.Find("customer")
		if got, want := componentEnv(t, r, "reporting")["CUSTOMER_URL"].Value, fmt.Sprintf("http://%s:%d", c.Name, c.Port); got != want {
			t.Errorf("%s reporting: rule \"CUSTOMER_URL is the customer Service\": %q, want %q", ov, got, want)
		}

		ing, ok := r.Ingresses["gateway"]
		if !ok {
			t.Errorf("%s: rule \"an Ingress for the gateway\": none", ov)
			continue
		}
		for _, rule := range ing.Spec.Rules {
			for _, p := range rule.HTTP.Paths {
				if b := p.Backend.Service; b == nil || b.Name != "gateway" {
					t.Errorf("%s Ingress/gateway: rule \"routes only to the gateway\": backend %+v", ov, p.Backend)
				}
			}
		}
		// Links the services hand out (fileUrl, reportUrl, photo URLs) are
		// built on PUBLIC_URL: it must be the host the Ingress serves.
		hosts := map[string]bool{}
		for _, rule := range ing.Spec.Rules {
			hosts[rule.Host] = true
		}
		for _, s := range stack.All() {
			v, ok := componentEnv(t, r, s.Name)["PUBLIC_URL"]
			if !ok {
				continue
			}
			if u, err := url.Parse(v.Value); err != nil || !hosts[u.Host] {
				t.Errorf("%s Deployment/%s: rule \"PUBLIC_URL is the Ingress host\": %q, Ingress hosts %v", ov, s.Name, v.Value, hosts)
			}
		}
		limit, err := strconv.ParseInt(gw["MAX_UPLOAD_BODY"].Value, 10, 64)
		if err != nil {
			t.Fatalf("%s gateway MAX_UPLOAD_BODY: %v", ov, err)
		}
		if limit <= maxFileSize {
			t.Errorf("%s gateway: rule \"MAX_UPLOAD_BODY leaves room for the multipart framing of a %d-byte file\": %d", ov, maxFileSize, limit)
		}
		// Strictly more than the gateway's limit: a body just over it must
		// reach the gateway, which answers with its error envelope.
		body, err := nginxSize(ing.Annotations["nginx.ingress.kubernetes.io/proxy-body-size"])
		if err != nil || body <= limit {
			t.Errorf("%s Ingress/gateway: rule \"body size above MAX_UPLOAD_BODY (%d)\": proxy-body-size %q (%v)", ov, limit,
				ing.Annotations["nginx.ingress.kubernetes.io/proxy-body-size"], err)
		}
	}
}

// maxFileSize is the largest document upload (the document service's
// document.MaxFileSize, internal to its module; api/openapi.yaml says so).
const maxFileSize = 10 << 20

// nginxSize parses an nginx size ("11m", "1024k", "512").
func nginxSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "m"), strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "g"), strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n * mult, err
}

// TestOverlayDifferences checks what each overlay promises: prod refuses
// private webhook targets, runs in production mode and takes the store
// addresses from its configuration files; dev is local mode.
func TestOverlayDifferences(t *testing.T) {
	prod := render(t, "prod")
	common := parseEnvFile(t, filepath.Join(root, "k8s/overlays/prod/common.env"))
	minio := parseEnvFile(t, filepath.Join(root, "k8s/overlays/prod/minio.env"))
	checks := []struct {
		rule, component, name, want string
	}{
		{"prod refuses private webhook targets", "webhook", "WEBHOOK_ALLOW_PRIVATE", "false"},
		{"prod runs in production mode", "customer", "KYC_MODE", "production"},
		{"prod takes Kafka from common.env", "customer", "KAFKA_BROKERS", common["KAFKA_BROKERS"]},
		{"prod takes Kafka from common.env", "gateway", "KAFKA_BROKERS", common["KAFKA_BROKERS"]},
		{"prod takes MinIO from minio.env", "document", "MINIO_ENDPOINT", minio["MINIO_ENDPOINT"]},
		{"prod takes MinIO from minio.env", "verification", "MINIO_ENDPOINT", minio["MINIO_ENDPOINT"]},
		{"prod takes MinIO from minio.env", "reporting", "MINIO_ENDPOINT", minio["MINIO_ENDPOINT"]},
	}
	for _, c := range checks {
		if got := componentEnv(t, prod, c.component)[c.name]; got.Value != c.want || c.want == "" {
			t.Errorf("prod Deployment/%s: rule %q: %s=%q, want %q", c.component, c.rule, c.name, got.Value, c.want)
		}
	}
	// Postgres and Redis addresses carry credentials: they come from Secrets.
	for _, s := range stack.All() {
		env := componentEnv(t, prod, s.Name)
		for _, name := range []string{"DATABASE_URL", "REDIS_URL"} {
			if v, ok := env[name]; ok && !v.Secret {
				t.Errorf("prod Deployment/%s: rule \"store URLs come from Secrets\": %s from %s", s.Name, name, v.Source)
			}
		}
	}
	for _, s := range stack.All() {
		if got := componentEnv(t, prod, s.Name)["KYC_MODE"].Value; got != "production" {
			t.Errorf("prod Deployment/%s: rule \"production mode everywhere\": KYC_MODE=%q", s.Name, got)
		}
	}
	// One pod may be evicted at a time (the PDBs' maxUnavailable: 1): with
	// fewer than two, that is all of them.
	for _, s := range stack.All() {
		if h := prod.HPAs[s.Name]; h == nil || h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 2 {
			t.Errorf("prod HorizontalPodAutoscaler/%s: rule \"at least two replicas in production\"", s.Name)
		}
	}
	dev := render(t, "dev")
	if got := componentEnv(t, dev, "customer")["KYC_MODE"].Value; got != "local" {
		t.Errorf("dev Deployment/customer: rule \"dev is local mode\": KYC_MODE=%q", got)
	}
	for _, ov := range []*rendered{dev, prod} {
		for _, s := range stack.All() {
			if u, err := url.Parse(componentEnv(t, ov, s.Name)["PUBLIC_URL"].Value); err == nil && strings.HasPrefix(u.Host, "127.") {
				t.Errorf("%s Deployment/%s: rule \"PUBLIC_URL is not loopback\": %s", ov.Overlay, s.Name, u)
			}
		}
	}
}
