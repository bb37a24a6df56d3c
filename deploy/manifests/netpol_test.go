package manifests

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"testing"

	"code.dny.dev/ssrf"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/pkg/publicurl"
	"github.com/kycfield/kyc/stack"
)

// storesLabel marks the namespaces where the stores and the OTel collector
// run; their pods are found by app.kubernetes.io/name (k8s/README.md).
const storesLabel = "kyc.kycfield.io/stores"

// storePorts are the stores' ports, as the base settings name them.
var storePorts = map[string]int{"postgres": 5432, "redis": 6379, "kafka": 9092, "minio": 9000, "otel-collector": 4318}

// callers is who may open a connection to a service besides the gateway:
// reporting reads evidence photos from verification (VERIFICATION_URL);
// reporting, document and verification ask customer whether a customer is
// still there (CUSTOMER_URL).
var callers = map[string][]string{"verification": {"reporting"}, "customer": {"document", "reporting", "verification"}}

// peerName classifies one peer of a rule: "pod:<name>" (a component in the
// same namespace), "store:<name>", "dns", "prometheus",
// "ingress-controller", "internet" (an ipBlock), "cluster" (every pod of
// every namespace), or "unexpected ..." for anything else.
func peerName(p networkingv1.NetworkPolicyPeer) string {
	name := func() string {
		if p.PodSelector == nil || len(p.PodSelector.MatchExpressions) > 0 || len(p.PodSelector.MatchLabels) != 1 {
			return ""
		}
		return p.PodSelector.MatchLabels["app.kubernetes.io/name"]
	}
	ns := ""
	if p.NamespaceSelector != nil {
		ns = p.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"]
		if p.NamespaceSelector.MatchLabels[storesLabel] == "true" {
			ns = storesLabel
		}
		if len(p.NamespaceSelector.MatchLabels) == 0 && len(p.NamespaceSelector.MatchExpressions) == 0 && p.PodSelector == nil {
			return "cluster"
		}
	}
	switch {
	case p.IPBlock != nil:
		return "internet"
	case p.NamespaceSelector == nil && name() != "":
		return "pod:" + name()
	case ns == storesLabel && storePorts[name()] != 0:
		return "store:" + name()
	case ns == "kube-system" && p.PodSelector != nil && p.PodSelector.MatchLabels["k8s-app"] == "kube-dns":
		return "dns"
	case ns == "monitoring" && name() == "prometheus":
		return "prometheus"
	case ns == "ingress-nginx" && name() == "ingress-nginx":
		return "ingress-controller"
	}
	return fmt.Sprintf("unexpected %+v", p)
}

// ruleKeys renders a rule as "<peer>@<ports>" per peer, ports as
// PROTO/port ("*" for every port).
func ruleKeys(peers []networkingv1.NetworkPolicyPeer, ports []networkingv1.NetworkPolicyPort) []string {
	var ps []string
	for _, p := range ports {
		proto := corev1.ProtocolTCP
		if p.Protocol != nil {
			proto = *p.Protocol
		}
		port := "*"
		if p.Port != nil {
			port = p.Port.String()
		}
		ps = append(ps, fmt.Sprintf("%s/%s", proto, port))
	}
	sort.Strings(ps)
	if len(ps) == 0 {
		ps = []string{"any"}
	}
	var out []string
	if len(peers) == 0 {
		return []string{"everyone@" + strings.Join(ps, ",")}
	}
	for _, p := range peers {
		out = append(out, peerName(p)+"@"+strings.Join(ps, ","))
	}
	return out
}

func ingressKeys(np *networkingv1.NetworkPolicy) []string {
	var out []string
	for _, r := range np.Spec.Ingress {
		out = append(out, ruleKeys(r.From, r.Ports)...)
	}
	sort.Strings(out)
	return out
}

func egressKeys(np *networkingv1.NetworkPolicy) []string {
	var out []string
	for _, r := range np.Spec.Egress {
		out = append(out, ruleKeys(r.To, r.Ports)...)
	}
	sort.Strings(out)
	return out
}

func storeKey(name string) string { return fmt.Sprintf("store:%s@TCP/%d", name, storePorts[name]) }

const dnsKey = "dns@TCP/53,UDP/53"

// reads reports whether the component's Config reads the variable.
func reads(s platform.Service, name string) bool {
	return slices.ContainsFunc(Vars(Configs[s.Name]), func(v Var) bool { return v.Name == name })
}

// wantIngress is who may reach a component: the ingress controller (the
// gateway) or the gateway and known callers (services), and Prometheus.
func wantIngress(s platform.Service) []string {
	if s.Name == stack.Gateway.Name {
		return []string{"ingress-controller@TCP/http", "prometheus@TCP/metrics"}
	}
	out := []string{"pod:gateway@TCP/http", "prometheus@TCP/http"}
	for _, c := range callers[s.Name] {
		out = append(out, "pod:"+c+"@TCP/http")
	}
	sort.Strings(out)
	return out
}

// wantEgress is what a component may reach, derived from the registry and
// its Config: DNS, Kafka and the collector always; PostgreSQL with a
// database, MinIO with a bucket, Redis when it reads REDIS_URL; the services
// (gateway), verification (VERIFICATION_URL), customer (CUSTOMER_URL) and public addresses (the
// webhook deliveries, WEBHOOK_ALLOW_PRIVATE), plus every pod when that
// setting allows private targets.
func wantEgress(s platform.Service, env map[string]setVar) []string {
	out := []string{dnsKey, storeKey("kafka"), storeKey("otel-collector")}
	if s.Database != "" {
		out = append(out, storeKey("postgres"))
	}
	if s.Bucket != "" {
		out = append(out, storeKey("minio"))
	}
	if reads(s, "REDIS_URL") {
		out = append(out, storeKey("redis"))
	}
	if s.Name == stack.Gateway.Name {
		for _, svc := range stack.Services {
			out = append(out, fmt.Sprintf("pod:%s@TCP/%d", svc.Name, svc.Port))
		}
	}
	for setting, service := range map[string]string{"VERIFICATION_URL": "verification", "CUSTOMER_URL": "customer"} {
		if reads(s, setting) {
			v, _ := stack.Find(service)
			out = append(out, fmt.Sprintf("pod:%s@TCP/%d", v.Name, v.Port))
		}
	}
	if reads(s, "WEBHOOK_ALLOW_PRIVATE") {
		out = append(out, "internet@TCP/*")
		if env["WEBHOOK_ALLOW_PRIVATE"].Value == "true" {
			out = append(out, "cluster@TCP/*")
		}
	}
	sort.Strings(out)
	return out
}

// TestNetworkPolicies checks the default deny, then each component's
// policy: exactly the callers it must accept and the destinations it must
// reach, nothing from outside the namespace but the ingress controller (to
// the gateway) and Prometheus, and the migrations' own policy.
func TestNetworkPolicies(t *testing.T) {
	for _, ov := range overlays(t) {
		r := render(t, ov)
		deny := false
		for _, np := range r.NetworkPolicies {
			sel := np.Spec.PodSelector
			if len(sel.MatchLabels) == 1 && sel.MatchLabels["app.kubernetes.io/part-of"] == "kyc" &&
				len(np.Spec.Ingress) == 0 && len(np.Spec.Egress) == 0 &&
				slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) && slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) {
				deny = true
			}
		}
		if !deny {
			t.Errorf("%s: rule \"default deny\": no NetworkPolicy denies ingress and egress to every app.kubernetes.io/part-of=kyc pod", ov)
		}
		for _, s := range stack.All() {
			np, ok := r.NetworkPolicies[s.Name]
			if !ok {
				t.Errorf("%s: rule \"every component has a NetworkPolicy\": none for %s", ov, s.Name)
				continue
			}
			id := ov + " NetworkPolicy/" + s.Name
			if len(np.Spec.PodSelector.MatchLabels) != 1 || np.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"] != s.Name {
				t.Errorf("%s: rule \"selects its component's pods\": selects %v", id, np.Spec.PodSelector.MatchLabels)
			}
			if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}) {
				t.Errorf("%s: rule \"covers ingress and egress\": policyTypes %v", id, np.Spec.PolicyTypes)
			}
			in := ingressKeys(np)
			if s.Name != stack.Gateway.Name {
				for _, k := range in {
					if !strings.HasPrefix(k, "pod:") && !strings.HasPrefix(k, "prometheus@") {
						t.Errorf("%s: rule \"no service accepts ingress from outside the namespace\": %s", id, k)
					}
				}
			}
			if want := wantIngress(s); !slices.Equal(in, want) {
				t.Errorf("%s: rule \"only the gateway (the ingress controller for the gateway) and Prometheus get in\":\n got %v\nwant %v", id, in, want)
			}
			if got, want := egressKeys(np), wantEgress(s, componentEnv(t, r, s.Name)); !slices.Equal(got, want) {
				t.Errorf("%s: rule \"egress only to its own stores, DNS and what it calls\":\n got %v\nwant %v", id, got, want)
			}
			checkNamedPorts(t, r, id, s, np)
		}
		checkMigrationPolicy(t, r)
		checkInternet(t, r)
	}
	dev := render(t, "dev")
	if ns := dev.Namespaces["kyc-dev"]; ns == nil || ns.Labels[storesLabel] != "true" {
		t.Errorf("dev: rule \"the stores run in the namespace, which is labelled %s=true\": %+v", storesLabel, ns)
	}
}

// checkNamedPorts: a named port the pods do not declare makes the rule
// match nothing.
func checkNamedPorts(t *testing.T, r *rendered, id string, s platform.Service, np *networkingv1.NetworkPolicy) {
	t.Helper()
	d := r.Deployments[s.Name]
	if d == nil {
		return
	}
	names := map[string]bool{}
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, p := range c.Ports {
			names[p.Name] = true
		}
	}
	for _, in := range np.Spec.Ingress {
		for _, p := range in.Ports {
			if p.Port != nil && p.Port.Type == intstr.String && !names[p.Port.StrVal] {
				t.Errorf("%s: rule \"ports name container ports\": no container port named %q", id, p.Port.StrVal)
			}
		}
	}
}

// checkMigrationPolicy: the migration pods accept nothing and reach only
// PostgreSQL and DNS, and every Job's pods are the ones it selects.
func checkMigrationPolicy(t *testing.T, r *rendered) {
	t.Helper()
	np, ok := r.NetworkPolicies["kyc-migrations"]
	if !ok {
		t.Errorf("%s: rule \"the migration Jobs have a NetworkPolicy\": no NetworkPolicy kyc-migrations", r.Overlay)
		return
	}
	id := r.Overlay + " NetworkPolicy/kyc-migrations"
	if len(np.Spec.Ingress) > 0 || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
		t.Errorf("%s: rule \"nothing gets in\": %+v", id, np.Spec.Ingress)
	}
	if got, want := egressKeys(np), []string{dnsKey, storeKey("postgres")}; !slices.Equal(got, want) {
		t.Errorf("%s: rule \"out only to PostgreSQL and DNS\": got %v want %v", id, got, want)
	}
	for name, j := range r.Jobs {
		for k, v := range np.Spec.PodSelector.MatchLabels {
			if j.Spec.Template.Labels[k] != v {
				t.Errorf("%s: rule \"selects every migration pod\": Job %s's pods lack %s=%s", id, name, k, v)
			}
		}
	}
}

// checkInternet: the only ipBlock is the webhook service's, 0.0.0.0/0
// without every range pkg/publicurl refuses (and without anything it
// accepts), so the network agrees with the code about what is public.
func checkInternet(t *testing.T, r *rendered) {
	t.Helper()
	for name, np := range r.NetworkPolicies {
		for _, rule := range np.Spec.Egress {
			for _, p := range rule.To {
				if p.IPBlock == nil {
					continue
				}
				id := r.Overlay + " NetworkPolicy/" + name
				if name != "webhook" {
					t.Errorf("%s: rule \"only webhook deliveries leave the cluster\": ipBlock %+v", id, p.IPBlock)
					continue
				}
				if err := checkPublicOnly(*p.IPBlock); err != nil {
					t.Errorf("%s: rule \"webhook egress excludes private ranges\": %v", id, err)
				}
			}
		}
	}
}

// checkPublicOnly holds an ipBlock to publicurl.IsPublicIP.
func checkPublicOnly(b networkingv1.IPBlock) error {
	if b.CIDR != "0.0.0.0/0" {
		return fmt.Errorf("cidr %s, want 0.0.0.0/0 with the private ranges excepted", b.CIDR)
	}
	var except []netip.Prefix
	for _, e := range b.Except {
		p, err := netip.ParsePrefix(e)
		if err != nil {
			return err
		}
		// Both ends of an excepted range must be refused by the code too.
		last := p.Masked().Addr().As4()
		for i := range last {
			last[i] |= byte(0xff >> min(8, max(0, p.Bits()-8*i)))
		}
		for _, a := range []netip.Addr{p.Masked().Addr(), netip.AddrFrom4(last)} {
			if publicurl.IsPublicIP(a.AsSlice()) {
				return fmt.Errorf("except %s covers the public address %s", e, a)
			}
		}
		except = append(except, p)
	}
	allowed := func(s string) bool {
		a := netip.MustParseAddr(s)
		return !slices.ContainsFunc(except, func(p netip.Prefix) bool { return p.Contains(a) })
	}
	// And every IPv4 range the code refuses is excepted: the policy holds
	// even if the code's check were bypassed.
	for _, p := range ssrf.IPv4DeniedPrefixes {
		if !slices.Contains(except, p) {
			return fmt.Errorf("%s, refused by pkg/publicurl, is not excepted", p)
		}
	}
	for _, private := range []string{"10.0.0.1", "10.255.255.254", "172.16.0.1", "172.31.255.254", "192.168.1.1",
		"169.254.169.254", "100.64.0.1", "100.127.255.254", "127.0.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255"} {
		if allowed(private) {
			return fmt.Errorf("%s (not public) is reachable", private)
		}
	}
	for _, public := range []string{"1.1.1.1", "8.8.8.8", "52.94.236.248", "172.32.0.1", "100.128.0.1"} {
		if !allowed(public) {
			return fmt.Errorf("%s (public) is not reachable", public)
		}
	}
	return nil
}

// TestNetworkPolicyRulesCatchBreakage breaks rendered policies one way at
// a time and checks the comparison meant to catch it does.
func TestNetworkPolicyRulesCatchBreakage(t *testing.T) {
	r := render(t, "prod")
	get := func(name string) (platform.Service, *networkingv1.NetworkPolicy) {
		s, _ := stack.Find(name)
		np := r.NetworkPolicies[name]
		if np == nil {
			t.Fatalf("prod: no NetworkPolicy %s", name)
		}
		return s, np.DeepCopy()
	}
	webhookBlock := func(np *networkingv1.NetworkPolicy) *networkingv1.IPBlock {
		for _, rule := range np.Spec.Egress {
			for _, p := range rule.To {
				if p.IPBlock != nil {
					return p.IPBlock
				}
			}
		}
		t.Fatal("prod webhook: no ipBlock")
		return nil
	}
	t.Run("webhook may reach 10.0.0.0/8", func(t *testing.T) {
		_, np := get("webhook")
		b := webhookBlock(np)
		b.Except = slices.DeleteFunc(b.Except, func(e string) bool { return e == "10.0.0.0/8" })
		if err := checkPublicOnly(*b); err == nil {
			t.Error("not caught")
		}
	})
	t.Run("webhook refused a public range", func(t *testing.T) {
		_, np := get("webhook")
		b := webhookBlock(np)
		b.Except = append(b.Except, "8.0.0.0/8")
		if err := checkPublicOnly(*b); err == nil {
			t.Error("not caught")
		}
	})
	t.Run("customer open to another namespace", func(t *testing.T) {
		s, np := get("customer")
		np.Spec.Ingress[0].From = append(np.Spec.Ingress[0].From, networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{}})
		if slices.Equal(ingressKeys(np), wantIngress(s)) {
			t.Error("not caught")
		}
	})
	t.Run("auth-billing cut off from Redis", func(t *testing.T) {
		s, np := get("auth-billing")
		np.Spec.Egress = slices.DeleteFunc(np.Spec.Egress, func(e networkingv1.NetworkPolicyEgressRule) bool {
			return slices.ContainsFunc(e.To, func(p networkingv1.NetworkPolicyPeer) bool { return peerName(p) == "store:redis" })
		})
		if slices.Equal(egressKeys(np), wantEgress(s, componentEnv(t, r, s.Name))) {
			t.Error("not caught")
		}
	})
	t.Run("document reaching Redis it does not use", func(t *testing.T) {
		s, np := get("document")
		np.Spec.Egress = append(np.Spec.Egress, r.NetworkPolicies["auth-billing"].Spec.Egress...)
		if slices.Equal(egressKeys(np), wantEgress(s, componentEnv(t, r, s.Name))) {
			t.Error("not caught")
		}
	})
}
