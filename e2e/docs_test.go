package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kycfield/kyc/e2e/harness"
)

// repoRoot is the repository, seen from the e2e module.
const repoRoot = ".."

// TestDocsWalkthroughs runs every shell walkthrough of the docs
// (docs/walkthroughs/*.sh) against the platform, twice each: the docs
// promise that they work on what make run starts and can be run again, so
// a change that breaks one fails here. The scripts get what make run would
// give them (a gateway, a sandbox and a live key of a Growth organization,
// kycctl and its admin addresses) through their environment variables.
func TestDocsWalkthroughs(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join(repoRoot, "docs", "walkthroughs", "*.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var walkthroughs []string
	for _, s := range scripts {
		if filepath.Base(s) != "lib.sh" {
			walkthroughs = append(walkthroughs, s)
		}
	}
	if len(walkthroughs) == 0 {
		t.Fatal("no walkthroughs in docs/walkthroughs")
	}
	org := P.NewOrg(t, "growth")
	_, test := P.NewKey(t, org, "test")
	_, live := P.NewKey(t, org, "live")
	hooks := &docsReceiver{}
	receiver := httptest.NewServer(hooks)
	defer receiver.Close()
	env := append(os.Environ(),
		"KYC_URL="+P.GatewayURL,
		"KYC_SANDBOX_KEY="+test,
		"KYC_LIVE_KEY="+live,
		"KYC_TIMEOUT=60",
		"KYCCTL="+buildKycctl(t),
		"KYC_ADMIN_URL="+P.AuthBillingURL,
		"KYC_VERIFICATION_ADMIN_URL="+P.URLs["verification"],
		"ADMIN_TOKEN="+harness.AdminToken,
		"KYC_WEBHOOK_URL="+receiver.URL+"/kyc",
	)
	for _, script := range walkthroughs {
		name := filepath.Base(script)
		t.Run(name, func(t *testing.T) {
			for run := 1; run <= 2; run++ {
				out := runWalkthrough(t, script, env)
				if name == "webhooks.sh" {
					hooks.check(t, out)
				}
			}
		})
	}
}

// runWalkthrough runs one script to its end (at most 3 minutes) and
// returns its output; it fails the test, with the output, when the script
// fails.
func runWalkthrough(t *testing.T, script string, env []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v after %s\n%s", filepath.Base(script), err, time.Since(start).Round(time.Millisecond), out.String())
	}
	t.Logf("%s passed in %s", filepath.Base(script), time.Since(start).Round(time.Millisecond))
	return out.String()
}

// buildKycctl builds the operators' tool the walkthroughs call, from
// whichever module holds it.
func buildKycctl(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kycctl")
	for _, dir := range []string{"cmd/kycctl", "services/auth-billing/cmd/kycctl"} {
		pkg, err := filepath.Abs(filepath.Join(repoRoot, dir))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(pkg); err != nil {
			continue
		}
		mod := pkg
		for {
			if _, err := os.Stat(filepath.Join(mod, "go.mod")); err == nil {
				break
			}
			if filepath.Dir(mod) == mod {
				t.Fatalf("no go.mod above %s", pkg)
			}
			mod = filepath.Dir(mod)
		}
		rel, err := filepath.Rel(mod, pkg)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "build", "-o", bin, "./"+filepath.ToSlash(rel))
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build kycctl: %v\n%s", err, out)
		}
		return bin
	}
	t.Fatal("kycctl not found")
	return ""
}

// docsReceiver is the lender's receiver webhooks.sh registers: it keeps
// every delivery so that check can verify them with the secret the
// script printed, as the guide's Go receiver does. Its first answer is a
// 401, as from a receiver started late or with the wrong secret, so the
// script's resending is exercised too.
type docsReceiver struct {
	mu  sync.Mutex
	got []docsDelivery
}

type docsDelivery struct {
	header http.Header
	body   []byte
}

func (h *docsReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.got = append(h.got, docsDelivery{r.Header.Clone(), b})
	first := len(h.got) == 1
	h.mu.Unlock()
	if first {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

var docsSecret = regexp.MustCompile(`KYC_WEBHOOK_SECRET=(whsec_\S+)`)

// check verifies that a webhook.test delivery signed with the secret the
// script printed reached the receiver.
func (h *docsReceiver) check(t *testing.T, out string) {
	t.Helper()
	m := docsSecret.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("webhooks.sh printed no secret:\n%s", out)
	}
	wh, err := standardwebhooks.NewWebhook(m[1])
	if err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var bodies []string
	for _, d := range h.got {
		if wh.Verify(d.body, d.header) == nil && bytes.Contains(d.body, []byte(`"webhook.test"`)) {
			return
		}
		bodies = append(bodies, string(d.body))
	}
	t.Fatalf("no webhook.test delivery signed with the printed secret among %d received:\n%s", len(h.got), strings.Join(bodies, "\n"))
}
