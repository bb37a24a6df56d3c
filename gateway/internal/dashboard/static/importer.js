// Bulk import from CSV: the template, the check of every row (problems
// by row and column, nothing created), then the server-side job that
// creates the valid rows, with its progress and its results file. The
// job lives on the server: the page only remembers which import it last
// showed, so closing the browser loses nothing.
import { api, apiWith, file, session } from "./api.js";
import { h, field, busy, when, table, showError } from "./dom.js";

const remembered = () => "kyc-import-" + session.env;
const words = { VALIDATED: "Checked, not started", RUNNING: "Creating customers", COMPLETED: "Completed" };

// polls holds the timer of the progress being followed, so that leaving
// the page (or drawing it again) stops the previous one.
let poll = 0;

export async function view({ params }) {
  clearTimeout(poll);
  const id = params[0] || localStorage.getItem(remembered());
  const slot = h("div", { id: "import-job" });
  const page = [h("h1", { tabindex: "-1" }, "Bulk import"), intro(), upload(slot), slot];
  if (id) {
    try {
      await show(slot, await api("GET", "/imports/" + encodeURIComponent(id)));
    } catch (e) {
      if (e.status !== 404) throw e;
      localStorage.removeItem(remembered()); // another environment's, or gone
    }
  }
  return page;
}

function intro() {
  const slot = h("div", {});
  const get = h("button", { type: "button", class: "secondary", id: "download-template", onclick: () => busy(get, slot, async () => {
    save(await file("/imports/template.csv"), "customers-template.csv");
  }) }, "Download the CSV template");
  return h("section", { class: "card" }, h("p", {},
    "One customer a line, at most 5,000 in a file. The first row names the columns: keep the template's. ",
    "Every row is checked before anything is created, by the same rules as the API; rows with problems are listed and left out. ",
    "Each customer created counts as one request against today's quota."), get, slot);
}

function upload(slot) {
  const input = h("input", { type: "file", accept: ".csv,text/csv", required: true });
  // One key per chosen file: pressing twice, or retrying after a lost
  // answer, gives the same import.
  let key = crypto.randomUUID();
  input.addEventListener("change", () => { key = crypto.randomUUID(); });
  const submit = h("button", { type: "submit", id: "check-file" }, "Check the file");
  const form = h("form", { class: "card", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      if (!input.files.length) throw Object.assign(new Error("Choose a CSV file first"), { details: [{ field: "file", message: "is required" }] });
      const body = new FormData();
      body.append("file", input.files[0]);
      const im = await apiWith("POST", "/imports", body, { "Idempotency-Key": key });
      await show(slot, im);
      slot.querySelector("h2").focus();
    });
  } }, field("import-file", "CSV file", input, { name: "file", hint: "Exported from a spreadsheet as CSV (UTF-8)." }), submit);
  return form;
}

// show draws an import: its counts, its problems, then the start button,
// the progress bar or the results.
async function show(slot, im) {
  localStorage.setItem(remembered(), im.id);
  const problems = im.problemCount ? (await api("GET", `/imports/${encodeURIComponent(im.id)}/errors`)).problems : [];
  const status = h("p", { id: "import-status", role: "status", "aria-live": "polite" });
  const bar = h("progress", { id: "import-progress", max: "100", value: String(Math.round(im.progress * 100)) });
  const actions = h("div", { id: "import-actions" });
  slot.replaceChildren(h("section", { class: "card", "aria-labelledby": "import-title" },
    h("h2", { id: "import-title", tabindex: "-1" }, im.fileName ? `Import of ${im.fileName}` : "Import"),
    h("p", { id: "import-counts" }, `${im.totalRows} rows: ${im.validRows} ready to create, ${im.invalidRows} with problems.`),
    h("p", { class: "muted" }, `Checked ${when(im.createdAt)}.`),
    problems.length ? [h("h3", {}, `Problems (${problems.length})`), problemTable(problems)] : h("p", {}, "No problems found."),
    h("label", { for: "import-progress" }, "Progress"), bar, status, actions));
  progress(im, bar, status, actions);
}

function problemTable(problems) {
  return h("div", { id: "import-problems" }, table("Problems by row and column", ["Row", "Column", "Problem"], problems.map((p) => ({
    cells: [String(p.row), p.column || "—", [p.message,
      p.suggestions && p.suggestions.length ? ` (did you mean ${p.suggestions.join(", ")}?)` : "",
      p.existingId ? [" ", h("a", { href: `#/customers/${encodeURIComponent(p.existingId)}` }, "existing customer")] : ""]],
  }))));
}

// progress shows where the job is and follows it until it completes.
function progress(im, bar, status, actions) {
  bar.value = Math.round(im.progress * 100);
  status.textContent = `${words[im.status] || im.status}: ${im.createdRows} created, ${im.failedRows} failed, of ${im.validRows}.`;
  if (im.status === "VALIDATED") {
    const start = h("button", { type: "button", id: "start-import", disabled: im.validRows === 0, onclick: () => busy(start, actions, async () => {
      const next = await apiWith("POST", `/imports/${encodeURIComponent(im.id)}/start`, { rows: im.validRows }, { "Idempotency-Key": "start-" + im.id });
      progress(next, bar, status, actions);
    }) }, `Create ${im.validRows} customers`);
    actions.replaceChildren(start);
    return;
  }
  actions.replaceChildren(...results(im));
  if (im.status === "RUNNING") {
    poll = setTimeout(async () => {
      if (!bar.isConnected) return; // the person has left the page
      try {
        progress(await api("GET", "/imports/" + encodeURIComponent(im.id)), bar, status, actions);
      } catch (e) {
        showError(actions, e);
        poll = setTimeout(() => progress(im, bar, status, actions), 3000);
      }
    }, 1000);
  }
}

function results(im) {
  const slot = h("div", {});
  const get = h("button", { type: "button", class: "secondary", id: "download-results", onclick: () => busy(get, slot, async () => {
    save(await file(`/imports/${encodeURIComponent(im.id)}/results.csv`), `import-${im.id}-results.csv`);
  }) }, "Download the results (CSV)");
  return [get, slot];
}

function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}
