package manifests

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/platform"
	"github.com/kycfield/kyc/stack"
)

var update = flag.Bool("update", false, "rewrite the configuration table in docs/operations.md")

// varNotes say what each variable is for. Every variable a component reads
// needs one: a new setting fails TestREADMEConfigTable until it is
// documented here (and the table regenerated).
var varNotes = map[string]string{
	"KYC_MODE":                    "`local` or `production` (refuses every default secret, secure cookies)",
	"LOG_LEVEL":                   "`debug`, `info`, `warn`, `error`",
	"PRINCIPAL_SECRETS":           "sign and verify the gateway's principal header, comma-separated: the first signs, all verify (rotation)",
	"PRINCIPAL_TTL":               "how long a signed principal header is valid",
	"KAFKA_BROKERS":               "Kafka bootstrap brokers, comma-separated",
	"KAFKA_TOPIC_PREFIX":          "prefix of every topic",
	"KAFKA_PARTITIONS":            "partitions of the topics the service creates (caps useful consumer replicas)",
	"KAFKA_REPLICATION":           "replication factor of the topics the service creates",
	"SHUTDOWN_TIMEOUT":            "drain time for requests and consumers on SIGTERM",
	"SHUTDOWN_DELAY":              "on SIGTERM, how long to go on serving with `/readyz` failing before the drain, while load balancers stop routing here",
	"HTTP_ADDR":                   "listen address",
	"DATABASE_URL":                "the service's own PostgreSQL database (created at start when the role may)",
	"DATABASE_MAX_CONNS":          "connection pool size",
	"REDIS_URL":                   "Redis (gateway: key cache, quotas, idempotency; auth-billing: sign-in throttling)",
	"REDIS_KEY_PREFIX":            "prefix of every Redis key",
	"ADMIN_ADDR":                  "listen address of `/metrics` (kept off the public port)",
	"ADMIN_TOKEN":                 "the operators' token for the admin APIs (kycctl)",
	"BCRYPT_COST":                 "cost of dashboard password hashes",
	"SESSION_TTL":                 "dashboard session lifetime",
	"STAFF_SESSION_TTL":           "operations console (staff) session lifetime",
	"STAFF_ENROL_TTL":             "how long a staff member's one-time enrolment link works",
	"PII_KEYS":                    "keys encrypting BVN and NIN at rest, `id:base64-32-bytes,…`",
	"PII_ACTIVE_KEY":              "the id in `PII_KEYS` that encrypts new values",
	"TOTP_KEYS":                   "keys encrypting dashboard users' and operations staff's TOTP secrets at rest, `id:base64-32-bytes,…`",
	"TOTP_ACTIVE_KEY":             "the id in `TOTP_KEYS` that encrypts new secrets",
	"MINIO_ENDPOINT":              "object store `host:port`",
	"MINIO_ACCESS_KEY":            "object store access key",
	"MINIO_SECRET_KEY":            "object store secret key",
	"MINIO_USE_SSL":               "TLS to the object store",
	"MINIO_REGION":                "object store region",
	"MINIO_BUCKET":                "the service's own bucket (created at start)",
	"PUBLIC_URL":                  "the gateway as clients reach it: links the service hands out are built on it",
	"UPLOAD_DIR":                  "where uploads are spooled while checked (empty: the system temp dir)",
	"OPTIMISE_CONCURRENCY":        "images optimised at once, about 60 MB each (0: one per core)",
	"ORPHAN_GRACE":                "how long a stored file may wait for its row before the sweeper removes it",
	"SANDBOX_DELAY":               "how long a sandbox verification takes (0: done in the transaction that opens the address)",
	"RENDER_WORKERS":              "reports rendered at once (0: one per core)",
	"SANDBOX_POLL":                "shortest pause between the sandbox worker's looks for due jobs (idle, it sleeps until the next job is due or a transaction wakes it)",
	"VERIFICATION_URL":            "the verification service's own address, where evidence photos are read",
	"PHOTO_TIMEOUT":               "timeout of one photo read from verification",
	"CUSTOMER_URL":                "the customer service's own address, asked whether a customer is still there before a lender's read of its report, documents or photos",
	"RENDER_POLL":                 "shortest pause between the render worker's looks for due renders (idle, it sleeps until the next retry is due or a transaction wakes it)",
	"REPORT_SIGNING_CERT_FILE":    "PEM certificate (then its issuers) that signs every report PDF; unset or absent outside production: an ephemeral self-signed key",
	"REPORT_SIGNING_KEY_FILE":     "PEM private key of that certificate",
	"WEBHOOK_SECRET_KEYS":         "keys sealing endpoints' signing secrets at rest, `id:base64-32-bytes,…`",
	"WEBHOOK_SECRET_ACTIVE_KEY":   "the id in `WEBHOOK_SECRET_KEYS` that seals new secrets",
	"WEBHOOK_ALLOW_PRIVATE":       "allow sandbox endpoints on loopback and private addresses (live ones never)",
	"WEBHOOK_RETRY_SCHEDULE":      "delay before each delivery attempt",
	"WEBHOOK_DISABLE_AFTER":       "an endpoint failing this long is disabled",
	"WEBHOOK_TIMEOUT":             "timeout of one delivery",
	"WEBHOOK_WORKERS":             "deliveries in flight per replica",
	"IMPORT_POLL":                 "how often the CSV import worker looks for unfinished jobs without a NOTIFY (one lost while its connection was replaced)",
	"WEBHOOK_PER_ENDPOINT":        "deliveries in flight per endpoint, across replicas",
	"WEBHOOK_POLL":                "shortest pause between the dispatcher's looks for due deliveries (idle, it sleeps until the next attempt is due or a NOTIFY wakes it)",
	"WEBHOOK_RETENTION":           "how long the delivery log keeps deliveries that ended",
	"UPSTREAMS":                   "`name=url,…` for every service the route table names (start-up fails naming a missing one)",
	"MAX_JSON_BODY":               "largest JSON request body, bytes",
	"MAX_UPLOAD_BODY":             "largest multipart request body, bytes (a 10 MiB file and its framing)",
	"KEY_CACHE_TTL":               "how long a pod keeps a resolved API key",
	"KEY_SHARED_CACHE_TTL":        "how long a resolved API key stays in Redis for every pod",
	"IDEMPOTENCY_TTL":             "how long an `Idempotency-Key` answer is replayed",
	"USAGE_REPORT_INTERVAL":       "how often usage counts are published to auth-billing",
	"UPSTREAM_TIMEOUT":            "timeout of one call to a service",
	"API_ADMIT_WAIT":              "how long a lender-API request may wait for an admission slot before it is answered 503 `SERVICE_OVERLOADED` with `Retry-After` ([overload](#overload-admission-control))",
	"API_MAX_IN_FLIGHT":           "lender-API requests (`/api/v1` with an API key) one gateway process serves at once; 0: no bound ([overload](#overload-admission-control))",
	"API_ORG_MAX_IN_FLIGHT":       "how many of those one organization may hold; 0: three quarters of `API_MAX_IN_FLIGHT`",
	"TRUSTED_PROXY_HOPS":          "proxies in front whose `X-Forwarded-For` is trusted (1 behind the Ingress)",
	"GOMEMLIMIT":                  "Go heap limit, from the container's memory limit",
	"OTEL_EXPORTER_OTLP_ENDPOINT": "OTLP/HTTP collector for traces (unset: no export); every standard `OTEL_*` variable applies",
}

// configRow is one variable of the table.
type configRow struct {
	name, readBy, def, k8s string
}

// configRows builds the table from each component's Config (by
// reflection, as the manifest rules read them) and the prod overlay.
func configRows(t *testing.T) []configRow {
	t.Helper()
	prod := render(t, "prod")
	users := map[string][]platform.Service{}
	vars := map[string]map[string]Var{} // variable -> component -> Var
	for _, s := range stack.All() {
		for _, v := range Vars(Configs[s.Name]) {
			users[v.Name] = append(users[v.Name], s)
			if vars[v.Name] == nil {
				vars[v.Name] = map[string]Var{}
			}
			vars[v.Name][s.Name] = v
		}
		for name := range componentEnv(t, prod, s.Name) {
			if extraVar(name) && !slices.ContainsFunc(users[name], func(u platform.Service) bool { return u.Name == s.Name }) {
				users[name] = append(users[name], s)
			}
		}
	}
	var rows []configRow
	for name, us := range users {
		rows = append(rows, configRow{name: name, readBy: readBy(us), def: defaults(name, us, vars[name]), k8s: k8sSources(t, prod, name, us)})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	return rows
}

func readBy(us []platform.Service) string {
	if len(us) == len(stack.All()) {
		return "all"
	}
	var names []string
	for _, u := range us {
		names = append(names, u.Name)
	}
	return strings.Join(names, ", ")
}

// defaults shows the value a variable takes when unset: the env tag's
// default, or the registry's (port, database, bucket); secrets' local
// values are not printed.
func defaults(name string, us []platform.Service, vs map[string]Var) string {
	seen := map[string][]string{}
	var order []string
	for _, u := range us {
		v, ok := vs[u.Name]
		d := ""
		switch {
		case !ok:
			d = "unset" // read by the Go runtime or the OpenTelemetry SDK
		case v.Secret:
			d = "a local value, refused in production"
		case v.HasDefault:
			d = "`" + v.Default + "`"
		case u.Defaults()[name] != "":
			d = "`" + u.Defaults()[name] + "`"
		default:
			d = "none"
		}
		if d == "``" {
			d = "empty"
		}
		if _, ok := seen[d]; !ok {
			order = append(order, d)
		}
		seen[d] = append(seen[d], u.Name)
	}
	if len(order) == 1 {
		return order[0]
	}
	if len(order) > 3 {
		return "per component, from the registry (`127.0.0.1:<port>`, the local server's `kyc_<component>`)"
	}
	var parts []string
	for _, d := range order {
		parts = append(parts, strings.Join(seen[d], ", ")+": "+d)
	}
	return strings.Join(parts, "; ")
}

var hashSuffix = regexp.MustCompile(`-[a-z0-9]{10}$`)

// k8sSources says where the prod overlay sets a variable, with a
// component's own name written <component>.
func k8sSources(t *testing.T, prod *rendered, name string, us []platform.Service) string {
	var out []string
	for _, u := range us {
		v, ok := componentEnv(t, prod, u.Name)[name]
		src := "not set"
		if ok {
			kind, obj, _ := strings.Cut(v.Source, " ")
			obj = hashSuffix.ReplaceAllString(obj, "")
			if obj == u.Name || obj == "kyc-"+u.Name {
				obj = strings.Replace(obj, u.Name, "<component>", 1)
			}
			src = kind
			if kind == "fieldRef" {
				src = "resourceFieldRef `limits.memory`"
			} else if obj != "" {
				src += " `" + obj + "`"
			}
		}
		if !slices.Contains(out, src) {
			out = append(out, src)
		}
	}
	return strings.Join(out, ", ")
}

func renderTable(rows []configRow) string {
	var b strings.Builder
	b.WriteString("| variable | read by | default | prod overlay | what for |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.name, r.readBy, r.def, r.k8s, varNotes[r.name])
	}
	return b.String()
}

const (
	tableBegin = "<!-- config-table: generated by TestREADMEConfigTable (deploy/manifests); go test -run TestREADMEConfigTable -update -->\n"
	tableEnd   = "<!-- end config-table -->"
)

// TestREADMEConfigTable holds the configuration table in docs/operations.md
// (the README's until the docs moved; the name stays for the -run habits) to every
// variable each component reads, its default and where the prod overlay
// sets it; -update rewrites it.
func TestREADMEConfigTable(t *testing.T) {
	rows := configRows(t)
	for _, r := range rows {
		if varNotes[r.name] == "" {
			t.Errorf("%s (read by %s): rule \"every setting is documented\": add it to varNotes", r.name, r.readBy)
		}
	}
	path := filepath.Join(root, "docs", "operations.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, tableBegin), strings.Index(readme, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/operations.md: no configuration table between %q and %q", tableBegin, tableEnd)
	}
	want := renderTable(rows)
	if got := readme[i+len(tableBegin) : j]; got != want {
		if !*update {
			t.Fatalf("docs/operations.md's configuration table is out of date: cd deploy/manifests && GOWORK=off go test -run TestREADMEConfigTable -update\nwant:\n%s", want)
		}
		readme = readme[:i+len(tableBegin)] + want + readme[j:]
		if err := os.WriteFile(path, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
