// Customers: search, status filter and cursor pagination; one customer's
// page with each address's timeline, evidence photos and flags, the
// documents, and the report download.
import { api, file, session } from "./api.js";
import { h, field, busy, when, table, showError } from "./dom.js";
import { attachForm } from "./attach.js";
import { can } from "./roles.js";

const statuses = ["PENDING", "IN_PROGRESS", "VERIFIED", "REJECTED"];
// IN_REVIEW: operations check the agent's result before it is released.
const words = { PENDING: "Pending", ASSIGNED: "Assigned", IN_PROGRESS: "In progress", IN_REVIEW: "Under quality review",
  VERIFIED: "Verified", REJECTED: "Rejected", FAILED: "Failed", NO_ACCESS: "No access" };
// Reason codes in words (the code stays beside them for support).
const reasons = { ADDRESS_NOT_FOUND: "Address not found", WRONG_ADDRESS: "Wrong address", INVALID_ADDRESS: "Invalid address",
  CUSTOMER_NOT_KNOWN_AT_ADDRESS: "Customer not known at the address", CUSTOMER_MOVED: "Customer has moved", NO_ACCESS: "No access",
  UNSAFE_AREA: "Unsafe area", OTHER: "Other" };
// A reviewer's decisions in words.
const decisions = { APPROVE: "Approved", REJECT: "Rejected", REVISIT: "Sent back for a re-visit" };
const say = (s) => words[s] || s;
const reason = (r) => (reasons[r] ? [reasons[r], " ", h("code", { class: "muted" }, r)] : r);
const metres = (m) => (m < 1000 ? `${Math.round(m)} m` : `${(m / 1000).toFixed(1)} km`);
const coords = (lat, lng) => `${lat.toFixed(6)}, ${lng.toFixed(6)}`;

// The list's filters and the cursors of the pages before this one, kept
// while the person opens a customer and comes back.
const state = { search: "", status: "", cursors: [""] };

export function view({ me, params }) {
  return params[0] ? customer(params[0], can.write(me)) : list();
}

async function list() {
  const results = h("div", { id: "results", "aria-live": "polite" });
  const search = h("input", { type: "search", value: state.search, maxlength: "100" });
  const status = h("select", {}, h("option", { value: "" }, "Any status"),
    statuses.map((s) => h("option", { value: s, selected: state.status === s }, say(s))));
  const submit = h("button", { type: "submit", id: "search-go" }, "Search");
  const form = h("form", { class: "card", role: "search", onsubmit: (ev) => {
    ev.preventDefault();
    Object.assign(state, { search: search.value, status: status.value, cursors: [""] });
    busy(submit, form, () => load(results, form));
  } }, h("div", { class: "row filters" },
    field("search", "Name, email or phone", search), field("status", "Status", status)), submit);
  await load(results, form);
  return [h("h1", { tabindex: "-1" }, "Customers"), form, results];
}

async function load(results, form) {
  const q = new URLSearchParams({ limit: "20" });
  if (state.search.trim()) q.set("search", state.search.trim());
  if (state.status) q.set("status", state.status);
  const cursor = state.cursors[state.cursors.length - 1];
  if (cursor) q.set("cursor", cursor);
  let page;
  try {
    page = await api("GET", "/customers?" + q);
  } catch (e) {
    results.replaceChildren();
    showError(form, e);
    return;
  }
  const p = page.pagination;
  const first = (state.cursors.length - 1) * p.limit + 1;
  const move = (dir) => async (ev) => {
    if (dir > 0) state.cursors.push(p.nextCursor);
    else state.cursors.pop();
    await busy(ev.target, results, () => load(results, form));
    results.querySelector("h2").focus();
  };
  results.replaceChildren(
    h("h2", { tabindex: "-1" }, page.customers.length
      ? `${first}-${first + page.customers.length - 1} of ${p.totalExact ? p.total : "more than " + p.total}` : "No customers match"),
    page.customers.length ? table("Customers", ["Name", "Phone", "Status", "Addresses", "Created"], page.customers.map((c) => ({
      cells: [h("a", { href: `#/customers/${encodeURIComponent(c.id)}` }, `${c.firstName} ${c.lastName}`), c.phone,
        say(c.status), String(c.addresses.length), when(c.createdAt)],
    }))) : h("p", { class: "muted" }, session.env === "test" ? "Customers created with a sandbox key show here." : "Customers created with a live key show here."),
    h("div", { class: "row" },
      state.cursors.length > 1 && h("button", { type: "button", class: "secondary", id: "prev-page", onclick: move(-1) }, "Previous page"),
      p.hasNext && h("button", { type: "button", class: "secondary", id: "next-page", onclick: move(1) }, "Next page")));
  performance.mark("kyc:customers-drawn"); // read by bench/cmd/dashbench
}

async function customer(id, write) {
  const back = h("p", {}, h("a", { href: "#/customers" }, "← All customers"));
  let c, s;
  try {
    [c, s] = await Promise.all([api("GET", "/customers/" + encodeURIComponent(id)), api("GET", `/verification/${encodeURIComponent(id)}/status`)]);
  } catch (e) {
    const where = session.env === "test" ? "the sandbox" : "live";
    return [back, h("h1", { tabindex: "-1" }, "Customer"), h("p", { class: "error", role: "alert", id: "customer-error" },
      e.status === 404 ? `Customer not found: no customer ${id} in ${where} for your organization.` : e.message)];
  }
  const report = h("div", { id: "report" });
  const get = h("button", { type: "button", id: "download-report", disabled: !c.reportUrl && !["VERIFIED", "REJECTED"].includes(c.status),
    onclick: () => busy(get, report, async () => {
      const blob = await file(`/customers/${encodeURIComponent(id)}/report`);
      save(blob, `kyc-report-${id}.pdf`);
      report.append(h("p", { role: "status", id: "report-status" }, `Report downloaded (${Math.round(blob.size / 1024)} KB PDF).`));
    }) }, "Download report (PDF)");
  return [back,
    h("h1", { tabindex: "-1" }, `${c.firstName} ${c.lastName}`),
    h("section", { class: "card" }, h("dl", { class: "facts" },
      fact("Status", say(c.status)), fact("Phone", c.phone), fact("Email", c.email || "—"), fact("Loan", c.loanId ? `${c.loanId} (${c.loanType || "—"})` : "—"),
      fact("BVN", c.bvn || "—"), fact("NIN", c.nin || "—"), fact("Created", when(c.createdAt)), fact("Decided", when(s.verificationDate))),
    get, report),
    h("h2", {}, "Addresses"),
    s.addresses.map((a, i) => address(id, a, i)),
    h("h2", {}, "Documents"),
    docs(id, c.documents, write)];
}

// docs is the documents list and the form attaching one (attach.js),
// which redraws the list from the document service when it has. A
// viewer (read scope only) is not offered the form.
function docs(id, list, write) {
  const box = h("div", { id: "documents" }, documents(id, list));
  return [box, write && attachForm(id, async () => {
    const r = await api("GET", `/customers/${encodeURIComponent(id)}/documents`);
    box.replaceChildren(documents(id, r.documents || []));
  })];
}

function fact(k, v) {
  return [h("dt", {}, k), h("dd", {}, v)];
}

function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

function address(id, a, i) {
  const v = a.verificationData || {};
  const line = [a.streetNumber, a.streetName, a.city, a.lga, a.state].filter(Boolean).join(", ");
  const photos = h("div", { class: "photos" });
  for (const p of v.verificationPhotos || []) {
    const img = h("img", { alt: `${p.tag.replace(/_/g, " ")}, taken ${when(p.capturedAt)}` });
    photos.append(h("figure", {}, img, h("figcaption", { class: "muted" }, p.tag.replace(/_/g, " "), h("br", {}), when(p.capturedAt),
      p.latitude != null && [h("br", {}), coords(p.latitude, p.longitude),
        p.distanceFromCompletionMeters != null && ` · ${metres(p.distanceFromCompletionMeters)} from completion`])));
    // The photo needs the session's headers: fetch it, then show the copy.
    file(new URL(p.url, location.href).pathname.replace(/^\/api\/v1/, ""))
      .then((b) => { img.src = URL.createObjectURL(b); })
      .catch((e) => img.replaceWith(h("p", { class: "error" }, e.message)));
  }
  return h("section", { class: "card", "aria-labelledby": "addr-" + i },
    h("h3", { id: "addr-" + i }, `${a.label || "Address " + (i + 1)}: ${say(a.status)}`),
    h("p", {}, line, a.landmark && ` (${a.landmark})`),
    due(a, i),
    h("dl", { class: "facts" }, evidence(a, v)),
    flags(i, v),
    h("h4", {}, "Timeline"),
    (v.timeline || []).length ? h("ol", { class: "timeline" }, v.timeline.map((t) => h("li", {}, `${say(t.status)} — ${when(t.at)} (${t.by})${t.note ? `: ${t.note}` : ""}`)))
      : h("p", { class: "muted" }, "Waiting for the first step."),
    (v.verificationPhotos || []).length ? [h("h4", {}, `Evidence photos (${v.verificationPhotos.length})`), photos] : null);
}

// due is what operations promise for a live address (null in the
// sandbox): the time, and "overdue" in words while it is open and late.
function due(a, i) {
  if (!a.dueBy) return null;
  const open = !["VERIFIED", "REJECTED", "CANCELLED"].includes(a.status);
  const late = open && new Date(a.dueBy) < new Date();
  return h("p", { id: "due-" + i, class: late ? "due overdue" : "due" },
    open ? `Due by ${when(a.dueBy)}${late ? " — overdue" : ""}` : `Was due by ${when(a.dueBy)}`);
}

// evidence is what the visit found, each fact only when recorded.
function evidence(a, v) {
  const e = a.expectedLocation;
  const r = v.resident;
  const b = v.building;
  return [
    e && fact("Expected location", [coords(e.latitude, e.longitude), ` (${{ TOWN: "town", LGA: "LGA", STATE: "state" }[e.precision] || e.precision})`,
      v.distanceFromExpectedMeters != null && ` · visit ${metres(v.distanceFromExpectedMeters)} away`]),
    v.verifiedAddress && fact("Verified as", v.verifiedAddress),
    v.verifiedLatitude != null && fact("Coordinates", [coords(v.verifiedLatitude, v.verifiedLongitude),
      v.gpsAccuracyMeters != null && ` (GPS accuracy ±${Math.round(v.gpsAccuracyMeters)} m)`]),
    v.checkIn && fact("Checked in", [when(v.checkIn.at), v.distanceFromCheckInMeters != null && ` · ${metres(v.distanceFromCheckInMeters)} from completion`]),
    v.verifiedAt && fact("Visited", when(v.verifiedAt)),
    v.agent && fact("Agent", v.agent.name),
    r && fact("Resident interviewed", [r.name || "name not given", r.relationship && `, ${r.relationship}`,
      r.yearsAtAddress != null && `, ${r.yearsAtAddress} years at the address`]),
    v.neighbour && fact("Neighbour", [v.neighbour.confirmed ? "Confirmed" : "Did not confirm", v.neighbour.notes && `: ${v.neighbour.notes}`]),
    b && fact("Building", [b.type, b.colour && ` · ${b.colour}`, b.gatePresent != null && (b.gatePresent ? " · gate" : " · no gate")]),
    v.agentNotes && fact("Agent's notes", v.agentNotes),
    v.reason && fact("Reason", [reason(v.reason), v.diagnostics && ` — ${v.diagnostics}`]),
    v.review && fact("Quality review", [decisions[v.review.decision] || v.review.decision, ` by ${v.review.reviewedBy}, ${when(v.review.reviewedAt)}`,
      v.review.note && ` — ${v.review.note}`]),
  ];
}

// flags lists the evidence flags as sentences, most serious first, with
// the severity in words (not colour alone) and the code for support.
function flags(i, v) {
  const rank = { critical: 0, warning: 1, info: 2 };
  const details = (v.flagDetails || []).slice().sort((a, b) => (rank[a.severity] ?? 3) - (rank[b.severity] ?? 3));
  if (!details.length) {
    return h("p", {}, h("strong", {}, "Flags: "), v.flags && v.flags.length ? v.flags.join(", ") : "none");
  }
  return [h("h4", { id: "flags-" + i }, `Flags (${details.length})`),
    h("ul", { class: "flags", "aria-labelledby": "flags-" + i }, details.map((d) =>
      h("li", { class: "flag " + d.severity },
        h("strong", {}, d.severity.charAt(0).toUpperCase() + d.severity.slice(1) + ": "), d.message,
        " ", h("code", { class: "muted" }, d.code))))];
}

function documents(id, docs) {
  if (!docs.length) return h("p", { class: "muted" }, "No documents.");
  return table("Documents", ["Type", "File", "Uploaded", "Download"], docs.map((d) => {
    const slot = h("div", {});
    const get = h("button", { type: "button", class: "secondary small", onclick: () => busy(get, slot, async () =>
      save(await file(`/customers/${encodeURIComponent(id)}/documents/${encodeURIComponent(d.id)}/file`), d.fileName || d.id)) }, "Download");
    slot.append(get);
    return { cells: [d.documentType, d.fileName || "—", when(d.uploadedAt), slot] };
  }));
}
