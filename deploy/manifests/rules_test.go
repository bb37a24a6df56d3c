package manifests

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kycfield/kyc/stack"
)

// TestRulesCatchBreakage breaks one thing at a time in a rendered
// Deployment and checks the rule meant to catch it does, so a rule that
// silently stops checking fails here.
func TestRulesCatchBreakage(t *testing.T) {
	r := render(t, "dev")
	s, _ := stack.Find("document")
	orig := r.Deployments[s.Name]
	if orig == nil {
		t.Fatal("dev: no Deployment document")
	}
	f, tr := false, true
	main := func(d *appsv1.Deployment) *corev1.Container { c, _ := mainContainer(d); return c }
	dropEnv := func(name string) func(d *appsv1.Deployment) {
		return func(d *appsv1.Deployment) {
			c := main(d)
			var keep []corev1.EnvVar
			for _, e := range c.Env {
				if e.Name != name {
					keep = append(keep, e)
				}
			}
			c.Env = keep
		}
	}
	cases := []struct {
		breakage string
		rule     string
		mutate   func(d *appsv1.Deployment)
	}{
		{"selector off the pod labels", "selector matches the pod template (the API server refuses it otherwise)",
			func(d *appsv1.Deployment) { d.Spec.Selector.MatchLabels = map[string]string{"app": "document"} }},
		{"writable root filesystem", "every container is locked down (non-root, read-only root, no escalation, no capabilities)",
			func(d *appsv1.Deployment) { main(d).SecurityContext.ReadOnlyRootFilesystem = &f }},
		{"privilege escalation", "every container is locked down (non-root, read-only root, no escalation, no capabilities)",
			func(d *appsv1.Deployment) { main(d).SecurityContext.AllowPrivilegeEscalation = &tr }},
		{"capability added", "every container is locked down (non-root, read-only root, no escalation, no capabilities)",
			func(d *appsv1.Deployment) {
				main(d).SecurityContext.Capabilities.Add = []corev1.Capability{"NET_ADMIN"}
			}},
		{"pod may run as root", "pod runs as non-root with the runtime seccomp profile",
			func(d *appsv1.Deployment) { d.Spec.Template.Spec.SecurityContext.RunAsNonRoot = nil }},
		{"no memory limit", "requests and limits for cpu and memory",
			func(d *appsv1.Deployment) { delete(main(d).Resources.Limits, corev1.ResourceMemory) }},
		{"no GOMEMLIMIT", "GOMEMLIMIT follows the memory limit", dropEnv("GOMEMLIMIT")},
		{"readiness on /healthz", "probes: startup and liveness on /healthz, readiness on /readyz, on the service port",
			func(d *appsv1.Deployment) { main(d).ReadinessProbe.HTTPGet.Path = "/healthz" }},
		{"no /tmp volume", "/tmp is a sized emptyDir (the root filesystem is read-only)",
			func(d *appsv1.Deployment) { main(d).VolumeMounts = nil }},
		{"image of another target", "image names a Dockerfile target for this component",
			func(d *appsv1.Deployment) { main(d).Image = "kyc/customer:dev" }},
		{"grace shorter than the drain", "termination grace outlasts SHUTDOWN_DELAY plus SHUTDOWN_TIMEOUT",
			func(d *appsv1.Deployment) { g := int64(5); d.Spec.Template.Spec.TerminationGracePeriodSeconds = &g }},
		{"grace without the delay", "termination grace outlasts SHUTDOWN_DELAY plus SHUTDOWN_TIMEOUT",
			func(d *appsv1.Deployment) { g := int64(24); d.Spec.Template.Spec.TerminationGracePeriodSeconds = &g }},
		{"secret from a literal", "every variable the Config reads is set, nothing else, secrets only from Secrets",
			func(d *appsv1.Deployment) {
				dropEnv("MINIO_SECRET_KEY")(d)
				main(d).Env = append(main(d).Env, corev1.EnvVar{Name: "MINIO_SECRET_KEY", Value: "kycminio-secret"})
			}},
		{"variable missing", "every variable the Config reads is set, nothing else, secrets only from Secrets", dropEnv("DATABASE_URL")},
		{"variable nobody reads", "every variable the Config reads is set, nothing else, secrets only from Secrets",
			func(d *appsv1.Deployment) {
				main(d).Env = append(main(d).Env, corev1.EnvVar{Name: "UPLOADS_DIR", Value: "/tmp"})
			}},
	}
	for _, c := range cases {
		t.Run(c.breakage, func(t *testing.T) {
			d := orig.DeepCopy()
			c.mutate(d)
			for _, rule := range deploymentRules {
				if rule.name != c.rule {
					continue
				}
				if err := rule.check(r, s, d); err == nil {
					t.Errorf("rule %q did not catch: %s", c.rule, c.breakage)
				} else {
					t.Logf("caught: %v", err)
				}
				return
			}
			t.Fatalf("no rule named %q", c.rule)
		})
	}
}
