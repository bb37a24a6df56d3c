package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// The lender's operations pages of the dashboard (issue 29): the
// overview, the create form, attaching a document and the bulk import.

// TestDashboardAppOverviewCreateAttach: the overview shows the sandbox's
// figures; the create form puts the API's complaints beside their fields
// (with the state it meant as a button), then creates one customer; a
// document is attached to it by link, after a refused one.
func TestDashboardAppOverviewCreateAttach(t *testing.T) {
	t.Parallel()
	d := newDashPage(t)
	d.signUp(false)
	d.plan("growth")
	key := d.testKey()
	c := create(t, key, newCustomer(nil))
	waitOverall(t, key, c.ID, "VERIFIED")

	d.do(chromedp.Navigate(P.GatewayURL + "/dashboard/#/overview"))
	d.see("Overview · Sandbox")
	d.seeIn("stat-total-value", "1")
	d.seeIn("stat-verified-value", "1")
	d.see("1 verified and 0 rejected of 1 decided.")
	if label := d.value(`document.getElementById("daily-chart").getAttribute("aria-label")`); label != "Last 30 days: 1 verified and 0 rejected; at most 1 in a day" {
		t.Fatalf("chart label %q", label)
	}
	d.do(tap(chromedp.CSS(`details summary`)))
	today := time.Now().UTC().Format(time.DateOnly)
	if row := d.value(`[...document.querySelectorAll("details tbody tr")].pop().innerText.replace(/\s+/g, " ")`); row != today+" 1 0" {
		t.Fatalf("today's row %q", row)
	}
	d.shot("10-overview")

	name := surname()
	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/new-customer"), chromedp.WaitVisible(chromedp.ID("c-firstName")),
		chromedp.SendKeys(chromedp.ID("c-firstName"), "Adaeze"), chromedp.SendKeys(chromedp.ID("c-lastName"), name),
		chromedp.SendKeys(chromedp.ID("c-phone"), "0803 123 4567"), chromedp.SendKeys(chromedp.ID("a0-streetName"), "Admiralty Way"),
		chromedp.SendKeys(chromedp.ID("a0-city"), "Lekki"), chromedp.SendKeys(chromedp.ID("a0-state"), "Lagoss"),
		tap(chromedp.ID("create-customer")))
	d.seeIn("c-phone-err", "E.164")
	d.seeIn("a0-state-err", "Did you mean")
	if got := d.value(`document.querySelector("#c-phone").getAttribute("aria-invalid") + " " + document.activeElement.id`); got != "true c-phone" {
		t.Fatalf("the first field in error is marked and focused: %q", got)
	}
	d.shot("11-create-errors")
	phoneNo := phone()
	d.do(tap(chromedp.CSS(`#a0-state-err button.suggestion`)), chromedp.SetValue(chromedp.ID("c-phone"), phoneNo))
	if v := d.value(`document.getElementById("a0-state").value`); v != "Lagos" {
		t.Fatalf("the suggestion filled %q", v)
	}
	// A double press sends once (the button is busy) and, were it sent
	// twice, the same Idempotency-Key would create one customer.
	d.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("create-customer").click(); document.getElementById("create-customer").click()`))
	d.seeIn("create-done", "created; field verification has started")
	d.shot("12-customer-created")
	var list struct {
		Customers  []customerView
		Pagination struct{ Total int }
	}
	P.API(t, "GET", "/api/v1/customers?search="+strings.ToLower(name), key, nil).Decode(t, &list)
	if list.Pagination.Total != 1 {
		t.Fatalf("customers named %s: %d", name, list.Pagination.Total)
	}

	// Attach a document by link: a refused link first, beside its field.
	d.do(tap(chromedp.ID("created-link")), chromedp.WaitVisible(chromedp.ID("attach-form")),
		tap(chromedp.CSS(`input[name="attach-how"][value="link"]`)),
		chromedp.SendKeys(chromedp.ID("attach-url"), "ftp://files.example.com/bill.pdf"),
		chromedp.SendKeys(chromedp.ID("attach-name"), "bill.pdf"), chromedp.SendKeys(chromedp.ID("attach-size"), "18320"))
	// The document service learns of a new customer through an event:
	// until it has, the answer is 404, and the person presses again.
	for deadline := time.Now().Add(30 * time.Second); ; {
		d.do(tap(chromedp.ID("attach-document")))
		if _, err := chromedp.Run(d.ctx, chromedp.PollFunction[bool](`() => !document.getElementById("attach-document").disabled`,
			chromedp.WithPollingTimeout(time.Minute))); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(d.value(`document.getElementById("attach-url-err").innerText`), "https") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bad link was never refused beside its field: %s", d.screen())
		}
		time.Sleep(200 * time.Millisecond)
	}
	d.do(chromedp.SetValue(chromedp.ID("attach-url"), "https://files.example.com/bill.pdf"), tap(chromedp.ID("attach-document")))
	d.seeIn("attach-done", "Document attached: bill.pdf")
	d.seeIn("documents", "bill.pdf")
	d.shot("13-document-attached")
}

// TestDashboardAppImport: the template downloads; a file with three bad
// rows shows them by row and column before anything is created; the
// import then creates the rest with its progress bar, and the page shows
// the job again after a reload (it lives on the server).
func TestDashboardAppImport(t *testing.T) {
	t.Parallel()
	d := newDashPage(t)
	d.signUp(false)
	d.plan("growth")
	key := d.testKey()
	dir := t.TempDir()
	d.do(chromedp.Navigate(P.GatewayURL+"/dashboard/#/import"), chromedp.WaitVisible(chromedp.ID("download-template")),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
				Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir})
			return err
		}), tap(chromedp.ID("download-template")))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "customers-template.csv")); err == nil && strings.HasPrefix(string(b), "firstName,lastName,phone,") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no template downloaded in %s", dir)
		}
	}

	bad := map[int]string{
		4:  "Ngozi,Okafor,0803,,,Allen Avenue,Ikeja,Lagos",             // row 6: phone
		9:  "Ngozi,Okafor," + phone() + ",,,Allen Avenue,Ikeja,Lagoss", // row 11: state
		20: "N,Okafor," + phone() + ",,,Allen Avenue,Ikeja,Lagos",      // row 22: firstName
	}
	csvPath := filepath.Join(dir, "customers.csv")
	if err := os.WriteFile(csvPath, importCSV(fmt.Sprint(time.Now().UnixNano()), 30, bad), 0o644); err != nil {
		t.Fatal(err)
	}
	d.do(chromedp.SetUploadFiles(chromedp.ID("import-file"), []string{csvPath}), tap(chromedp.ID("check-file")))
	d.seeIn("import-counts", "30 rows: 27 ready to create, 3 with problems.")
	rows := d.value(`[...document.querySelectorAll("#import-problems tbody tr")].map((r) => r.innerText.replace(/\s+/g, " ")).join("|")`)
	for _, want := range []string{"6 phone", "11 address1_state", "did you mean Lagos", "22 firstName"} {
		if !strings.Contains(rows, want) {
			t.Fatalf("problems %q lack %q", rows, want)
		}
	}
	var list struct{ Pagination struct{ Total int } }
	P.API(t, "GET", "/api/v1/customers?limit=1", key, nil).Decode(t, &list)
	if list.Pagination.Total != 0 {
		t.Fatalf("created before the start: %d", list.Pagination.Total)
	}
	d.shot("14-import-problems")

	d.do(tap(chromedp.ID("start-import")))
	d.seeIn("import-status", "Completed: 27 created, 0 failed, of 27.")
	if v := d.value(`String(document.getElementById("import-progress").value)`); v != "100" {
		t.Fatalf("progress %s", v)
	}
	d.shot("15-import-completed")
	d.do(tap(chromedp.ID("download-results")))
	results := filepath.Join(dir, "import-"+d.value(`localStorage.getItem("kyc-import-test")`)+"-results.csv")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(results); err == nil && strings.Count(string(b), ",CREATED,cus_") == 27 && strings.Contains(string(b), "\n6,INVALID,,") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no results downloaded as %s", results)
		}
	}
	P.API(t, "GET", "/api/v1/customers?limit=1", key, nil).Decode(t, &list)
	if list.Pagination.Total != 27 {
		t.Fatalf("customers after the import: %d", list.Pagination.Total)
	}
	// Closing the page loses nothing: the job is the server's.
	d.do(chromedp.Reload())
	d.seeIn("import-status", "Completed: 27 created")
	d.fitsPhone("16-import-360px")
	if r := P.API(t, "GET", "/api/v1/customers", key, nil); r.Status != http.StatusOK {
		t.Fatal(r.Status)
	}
}
