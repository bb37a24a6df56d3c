package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Browser tests (the agent app, the dashboard) each drive their own
// Debian chromium through chromedp.

const chromiumPath = "/usr/bin/chromium"

// shotsDir is where an app's tests keep screenshots: the README's folder
// docs/<app> when KYC_SCREENSHOTS is set (`make screenshots`), otherwise a
// temporary one, so that a test run leaves the clone as it was (names and
// dates differ on every run).
func shotsDir(app string) string {
	if os.Getenv("KYC_SCREENSHOTS") != "" {
		return filepath.Join("..", "docs", app)
	}
	return filepath.Join(os.TempDir(), "kyc-"+app+"-screenshots")
}

// chromium is one browser with an empty profile, failing its test when
// the page throws.
type chromium struct {
	t     *testing.T
	ctx   context.Context
	shots string
}

func newChromium(t *testing.T, app string) *chromium {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("no %s: install it with deploy/local/tools.sh (apt-get install -y chromium)", chromiumPath)
	}
	// The flags of DESIGN-NOTES §7: without the networking ones chromium
	// tries to reach the internet and stalls.
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(360, 800))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	c := &chromium{t: t, ctx: ctx, shots: shotsDir(app)}
	// The first run starts the browser for the life of ctx: no timeout on it.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 800)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	// The page must never throw: an uncaught error is a screen the person
	// cannot finish.
	ectx, stop := context.WithCancel(ctx)
	errs := chromedp.Events(ectx, runtime.ExceptionThrown)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range errs {
			if err != nil {
				return
			}
			if d := ev.ExceptionDetails; d != nil {
				msg := d.Text
				if d.Exception != nil {
					msg += " " + d.Exception.Description
				}
				t.Errorf("the page threw at %s:%d: %s", d.URL, d.LineNumber+1, msg)
			}
		}
	}()
	t.Cleanup(func() { stop(); <-done })
	c.refuseSecurityErrors()
	return c
}

// refuseSecurityErrors fails the test on what the browser's console
// reports as a security error: above all a Content-Security-Policy
// violation (an inline style or script the page's policy blocks), which
// throws nothing and would otherwise pass unnoticed.
func (c *chromium) refuseSecurityErrors() {
	ctx, stop := context.WithCancel(c.ctx)
	entries := chromedp.Events(ctx, cdplog.EntryAdded)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range entries {
			if err != nil {
				return
			}
			if e := ev.Entry; e != nil && e.Source == cdplog.EntrySourceSecurity {
				c.t.Errorf("the browser reported: %s (%s)", e.Text, e.URL)
			}
		}
	}()
	c.t.Cleanup(func() { stop(); <-done })
	c.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, cdplog.Enable, cdp.Empty{})
		return err
	}))
}

// do runs browser steps; one minute each is far beyond what they need.
func (c *chromium) do(steps ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		c.t.Fatalf("browser: %v\nscreen: %s", err, c.screen())
	}
}

// tap presses what a selector finds once the screen has stopped moving. A
// person taps what they see; a test's click is aimed at coordinates taken
// a moment earlier, and on a loaded machine it misses a button that moved
// in between (the CI failure this replaced: Next pressed while the sync bar
// changed height, so the visit stayed on the photos step).
func tap[S chromedp.Selectable](sel S, opts ...chromedp.QueryOption) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := chromedp.Evaluate[bool](`delete window.__settle`)(ctx, t); err != nil {
			return err
		}
		if _, err := chromedp.PollFunction[bool](settledJS, chromedp.WithPollingInterval(50*time.Millisecond))(ctx, t); err != nil {
			return err
		}
		_, err := chromedp.Click(sel, opts...)(ctx, t)
		return err
	})
}

// settledJS is true once no control on the page has moved for four polls.
const settledJS = `() => {
	const k = [...document.querySelectorAll("button, input, select, label, a")]
		.map((e) => { const r = e.getBoundingClientRect(); return r.x + "," + r.y + "," + r.width + "," + r.height; }).join(";");
	const s = window.__settle || (window.__settle = { k: "", n: 0 });
	s.n = s.k === k ? s.n + 1 : 0;
	s.k = k;
	return s.n >= 4;
}`

// screen is the text the person sees.
func (c *chromium) screen() string {
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	// The address and the requests the page made (with how long each
	// took, 0 while still open) say why a screen is not the one expected.
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`"[" + location.href + "]\n" + document.body.innerText +
		"\n[requests] " + performance.getEntriesByType("resource").slice(-12)
			.map((e) => e.name.replace(location.origin, "") + " " + Math.round(e.duration) + "ms").join(", ")`))
	return s
}

// see waits until the screen shows text.
func (c *chromium) see(text string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, 2*time.Minute)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.PollFunction[bool](`(s) => document.body.innerText.includes(s)`,
		chromedp.WithPollingArgs(text), chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		c.t.Fatalf("the screen never showed %q: %v\nscreen: %s", text, err, c.screen())
	}
}

// shot saves what the browser shows, for the README.
func (c *chromium) shot(name string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		c.t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll(c.shots, 0o755); err == nil {
		_ = os.WriteFile(filepath.Join(c.shots, name+".png"), png, 0o644)
	}
}
