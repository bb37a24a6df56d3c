package manifests

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/stack"
)

// migrationLabel is what k8s/apply.sh and the migrations' NetworkPolicy
// select the Jobs and their pods by.
const migrationLabel = "app.kubernetes.io/component"

// jobName is the migration Job of a service.
func jobName(s platform.Service) string { return s.Name + "-migrate" }

// jobRule is one rule every migration Job must keep, given the Deployment
// of its service.
type jobRule struct {
	name  string
	check func(d *appsv1.Deployment, j *batchv1.Job) error
}

func jobContainer(j *batchv1.Job) (*corev1.Container, error) {
	if n := len(j.Spec.Template.Spec.Containers); n != 1 {
		return nil, fmt.Errorf("%d containers, want 1", n)
	}
	return &j.Spec.Template.Spec.Containers[0], nil
}

var jobRules = []jobRule{
	{"runs the Deployment's image with -migrate-only", func(d *appsv1.Deployment, j *batchv1.Job) error {
		c, err := jobContainer(j)
		if err != nil {
			return err
		}
		main, err := mainContainer(d)
		if err != nil {
			return err
		}
		if c.Image != main.Image {
			return fmt.Errorf("image %s, the Deployment runs %s", c.Image, main.Image)
		}
		if len(c.Command) > 0 || !slices.Equal(c.Args, []string{"-migrate-only"}) {
			return fmt.Errorf("command %v args %v, want the image's entrypoint with [-migrate-only]", c.Command, c.Args)
		}
		return nil
	}},
	{"same environment as the Deployment (settings, Secrets, container name)", func(d *appsv1.Deployment, j *batchv1.Job) error {
		c, err := jobContainer(j)
		if err != nil {
			return err
		}
		main, err := mainContainer(d)
		if err != nil {
			return err
		}
		// GOMEMLIMIT's resourceFieldRef names the container.
		if c.Name != main.Name {
			return fmt.Errorf("container %s, the Deployment's is %s", c.Name, main.Name)
		}
		if !reflect.DeepEqual(c.EnvFrom, main.EnvFrom) {
			return fmt.Errorf("envFrom %+v, the Deployment has %+v", c.EnvFrom, main.EnvFrom)
		}
		if !reflect.DeepEqual(c.Env, main.Env) {
			return fmt.Errorf("env %+v, the Deployment has %+v", c.Env, main.Env)
		}
		return nil
	}},
	{"locked down like the Deployment", func(d *appsv1.Deployment, j *batchv1.Job) error {
		spec := j.Spec.Template.Spec
		if err := lockedDown(spec); err != nil {
			return err
		}
		if sc := spec.SecurityContext; sc == nil || !reflect.DeepEqual(sc, d.Spec.Template.Spec.SecurityContext) {
			return fmt.Errorf("pod securityContext %+v, the Deployment's is %+v", sc, d.Spec.Template.Spec.SecurityContext)
		}
		if spec.ServiceAccountName != d.Spec.Template.Spec.ServiceAccountName {
			return fmt.Errorf("serviceAccountName %q, the Deployment's is %q", spec.ServiceAccountName, d.Spec.Template.Spec.ServiceAccountName)
		}
		if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
			return errors.New("automountServiceAccountToken is not false")
		}
		c, err := jobContainer(j)
		if err != nil {
			return err
		}
		for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, okr := c.Resources.Requests[res]
			lim, okl := c.Resources.Limits[res]
			if !okr || !okl || req.Cmp(lim) > 0 {
				return fmt.Errorf("%s: request and limit must be set, request <= limit", res)
			}
		}
		return nil
	}},
	{"its pods never receive the Service's traffic", func(d *appsv1.Deployment, j *batchv1.Job) error {
		labels := j.Spec.Template.Labels
		sel := d.Spec.Selector.MatchLabels
		matches := len(sel) > 0
		for k, v := range sel {
			matches = matches && labels[k] == v
		}
		if matches {
			return fmt.Errorf("pod labels %v match the Deployment's selector %v (and so its Service's)", labels, sel)
		}
		if labels[migrationLabel] != "migration" || j.Labels[migrationLabel] != "migration" {
			return fmt.Errorf("Job and pod must carry %s=migration (k8s/apply.sh and the NetworkPolicy select on it)", migrationLabel)
		}
		return nil
	}},
	{"runs to an end and cleans up", func(_ *appsv1.Deployment, j *batchv1.Job) error {
		s := j.Spec
		switch {
		case s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever:
			return fmt.Errorf("restartPolicy %q, want Never (failed pods stay for their logs)", s.Template.Spec.RestartPolicy)
		case s.BackoffLimit == nil || *s.BackoffLimit > 6:
			return errors.New("backoffLimit must be set, at most 6")
		case s.ActiveDeadlineSeconds == nil:
			return errors.New("activeDeadlineSeconds is not set (a stuck migration would hold the rollout forever)")
		case s.TTLSecondsAfterFinished == nil:
			return errors.New("ttlSecondsAfterFinished is not set (finished Jobs would pile up and block the next apply)")
		}
		return nil
	}},
}

// TestMigrationJobs checks that every service with a database has its
// migration Job in every overlay, held to jobRules, and that the
// Deployments carry the label k8s/apply.sh leaves for last.
func TestMigrationJobs(t *testing.T) {
	for _, ov := range overlays(t) {
		r := render(t, ov)
		want := 0
		for _, s := range stack.All() {
			d := r.Deployments[s.Name]
			if d == nil {
				continue // TestDeployments reports it
			}
			if d.Labels[migrationLabel] != "server" {
				t.Errorf("%s Deployment/%s: rule \"labelled %s=server (k8s/apply.sh rolls it last)\": labels %v", ov, s.Name, migrationLabel, d.Labels)
			}
			if s.Database == "" {
				continue
			}
			want++
			j, ok := r.Jobs[jobName(s)]
			if !ok {
				t.Errorf("%s: rule \"a migration Job per service with a database\": no Job %s", ov, jobName(s))
				continue
			}
			for _, rule := range jobRules {
				if err := rule.check(d, j); err != nil {
					t.Errorf("%s Job/%s: rule %q: %v", ov, j.Name, rule.name, err)
				}
			}
		}
		if len(r.Jobs) != want {
			t.Errorf("%s: %d Jobs, want %d (one per service with a database)", ov, len(r.Jobs), want)
		}
	}
}

// TestJobRulesCatchBreakage breaks one thing at a time in a rendered Job and
// checks the rule meant to catch it does.
func TestJobRulesCatchBreakage(t *testing.T) {
	r := render(t, "prod")
	s, _ := stack.Find("webhook")
	d, orig := r.Deployments[s.Name], r.Jobs[jobName(s)]
	if d == nil || orig == nil {
		t.Fatal("prod: no Deployment or Job for webhook")
	}
	tr := true
	cases := []struct {
		breakage, rule string
		mutate         func(j *batchv1.Job)
	}{
		{"an older image", "runs the Deployment's image with -migrate-only",
			func(j *batchv1.Job) {
				j.Spec.Template.Spec.Containers[0].Image = "registry.example.com/kyc/webhook:0.9.0"
			}},
		{"serves instead of migrating", "runs the Deployment's image with -migrate-only",
			func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Args = nil }},
		{"a Secret the Deployment no longer reads", "same environment as the Deployment (settings, Secrets, container name)",
			func(j *batchv1.Job) {
				c := &j.Spec.Template.Spec.Containers[0]
				c.Env = append(c.Env, corev1.EnvVar{Name: "DATABASE_URL", ValueFrom: &corev1.EnvVarSource{
					SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "kyc-old"}, Key: "DATABASE_URL"}}})
			}},
		{"a stale ConfigMap", "same environment as the Deployment (settings, Secrets, container name)",
			func(j *batchv1.Job) {
				j.Spec.Template.Spec.Containers[0].EnvFrom[0].ConfigMapRef.Name = "kyc-common-old"
			}},
		{"privilege escalation", "locked down like the Deployment",
			func(j *batchv1.Job) {
				j.Spec.Template.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = &tr
			}},
		{"an API token", "locked down like the Deployment",
			func(j *batchv1.Job) { j.Spec.Template.Spec.AutomountServiceAccountToken = &tr }},
		{"the service's pod labels", "its pods never receive the Service's traffic",
			func(j *batchv1.Job) { j.Spec.Template.Labels["app.kubernetes.io/name"] = s.Name }},
		{"kept forever", "runs to an end and cleans up",
			func(j *batchv1.Job) { j.Spec.TTLSecondsAfterFinished = nil }},
	}
	for _, c := range cases {
		t.Run(c.breakage, func(t *testing.T) {
			j := orig.DeepCopy()
			c.mutate(j)
			i := slices.IndexFunc(jobRules, func(r jobRule) bool { return r.name == c.rule })
			if i < 0 {
				t.Fatalf("no rule named %q", c.rule)
			}
			if err := jobRules[i].check(d, j); err == nil {
				t.Errorf("rule %q did not catch: %s", c.rule, c.breakage)
			} else {
				t.Logf("caught: %v", err)
			}
		})
	}
}
