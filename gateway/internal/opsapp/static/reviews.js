// Reviews (review before release): the queue of held live addresses,
// oldest first, and one held address's evidence side by side (photos
// with where and when they were taken, the flags explained, each visit's
// position trail, the interview and the agent's record) with the
// decision form. Reviewers decide; admins may read.
import { blob } from "./api.js";
import { h, field, busy, table, when, heading, choice } from "/shared/dom.js";

export const page = { id: "reviews", title: "Reviews", roles: ["reviewer", "admin"], render };

const kinds = { RESULT: "Held result", UNSAFE_AREA: "Unsafe area" };
const outcomes = { VERIFIED: "Verified", REJECTED: "Rejected" };
const severities = { critical: "Critical", warning: "Warning", info: "Info" };
// Rejection reason codes a reviewer may give (NO_ACCESS is the agents' own).
const reasons = [["ADDRESS_NOT_FOUND", "Address not found"], ["WRONG_ADDRESS", "Wrong address"],
  ["INVALID_ADDRESS", "Invalid address"], ["CUSTOMER_NOT_KNOWN_AT_ADDRESS", "Customer not known at the address"],
  ["CUSTOMER_MOVED", "Customer has moved"], ["UNSAFE_AREA", "Unsafe area"], ["OTHER", "Other"]];
const metres = (m) => (m < 1000 ? `${Math.round(m)} m` : `${(m / 1000).toFixed(1)} km`);
const coords = (lat, lng) => `${lat.toFixed(6)}, ${lng.toFixed(6)}`;
const area = (x) => [x.lga, x.state].filter(Boolean).join(", ");

function render(main, ctx) {
  return ctx.params.id ? evidence(main, ctx, ctx.params.id) : queue(main, ctx);
}

// queue lists the held addresses, a page at a time.
async function queue(main, ctx) {
  const first = await ctx.api("GET", "/reviews?limit=50");
  const rows = h("div", { id: "review-rows" });
  const more = h("div", {});
  const show = (page) => {
    rows.append(table("Held addresses, oldest first", ["Held since", "Organization", "Customer", "Area", "Agent", "Kind", "Flags", ""],
      page.reviews.map((x) => ({ attrs: { "data-address": x.addressId }, cells: [when(x.heldSince), x.organizationName || x.organizationId,
        x.customerName, area(x), x.agent ? x.agent.name || x.agent.id : "—",
        [kinds[x.kind] || x.kind, x.outcome && ` (${outcomes[x.outcome] || x.outcome})`], flagCounts(x.flags),
        h("button", { type: "button", class: "secondary small", "aria-label": `Review ${x.customerName}, ${area(x)}`,
          onclick: () => ctx.go("reviews", { id: x.addressId }) }, "Review")] }))));
    more.replaceChildren();
    if (page.nextCursor) {
      const b = h("button", { type: "button", class: "secondary", id: "reviews-more", onclick: () => busy(b, more, async () => {
        show(await ctx.api("GET", "/reviews?limit=50&cursor=" + encodeURIComponent(page.nextCursor)));
      }) }, "Show more");
      more.append(b);
    }
  };
  main.append(heading("Reviews"), h("p", { class: "muted" },
    "Live results held before release under each organization's review policy, and unsafe-area visits. Oldest first."));
  if (first.reviews.length === 0) {
    main.append(h("p", { class: "card", id: "reviews-empty" }, "Nothing is waiting for review."));
    return;
  }
  show(first);
  main.append(rows, more);
}

// flagCounts says how many flags of each severity, in words.
function flagCounts(flags) {
  const n = {};
  for (const f of flags || []) n[f.severity] = (n[f.severity] || 0) + 1;
  const parts = ["critical", "warning", "info"].filter((s) => n[s]).map((s) => `${n[s]} ${s}`);
  return parts.length ? parts.join(", ") : "none";
}

// evidence is one held address: the facts beside the photos, then the
// trail, the agent's record and the decision.
async function evidence(main, ctx, id) {
  const x = await ctx.api("GET", "/reviews/" + encodeURIComponent(id));
  const s = x.submitted || {};
  const back = h("button", { type: "button", class: "secondary", onclick: () => ctx.go("reviews") }, "Back to the queue");
  main.append(heading(`Review: ${x.customerName}`), back,
    h("div", { class: "review-grid" },
      h("section", { class: "card", "aria-labelledby": "rv-facts" }, h("h2", { id: "rv-facts" }, "What was submitted"), facts(x, s)),
      h("section", { class: "card", "aria-labelledby": "rv-photos" }, h("h2", { id: "rv-photos" }, `Photos (${(s.verificationPhotos || []).length})`),
        photos(s))),
    flags(x.flags),
    visits(x.visits || []),
    record(x.agentRecord),
    timeline(s.timeline || []),
    ctx.me.role === "reviewer" ? decide(ctx, x) : h("p", { class: "card muted" }, "Only reviewers decide held addresses."));
}

function fact(label, value) {
  return value ? [h("dt", {}, label), h("dd", {}, value)] : null;
}

function facts(x, s) {
  const a = x.address || {};
  const e = a.expectedLocation;
  const r = s.resident, b = s.building, n = s.neighbour;
  return h("dl", { class: "facts" },
    fact("Organization", `${x.organizationName || x.organizationId} (policy ${x.reviewPolicy})`),
    fact("Held", [kinds[x.kind] || x.kind, x.outcome && `: the agent submitted ${outcomes[x.outcome] || x.outcome}`, `, since ${when(x.heldSince)}`]),
    fact("Address", [a.streetNumber, a.streetName, a.city, a.lga, a.state].filter(Boolean).join(", ")),
    e && fact("Expected location", [coords(e.latitude, e.longitude), s.distanceFromExpectedMeters != null && ` · visit ${metres(s.distanceFromExpectedMeters)} away`]),
    fact("Verified as", s.verifiedAddress),
    s.verifiedLatitude != null && fact("Completed at", [coords(s.verifiedLatitude, s.verifiedLongitude),
      s.gpsAccuracyMeters != null && ` (±${Math.round(s.gpsAccuracyMeters)} m)`]),
    s.checkIn && fact("Checked in", [when(s.checkIn.at), ", ", coords(s.checkIn.latitude, s.checkIn.longitude),
      s.distanceFromCheckInMeters != null && ` · ${metres(s.distanceFromCheckInMeters)} from completion`]),
    fact("Agent", s.agent && s.agent.name),
    r && fact("Interview", [r.name || "name not given", r.relationship && `, ${r.relationship}`, r.yearsAtAddress != null && `, ${r.yearsAtAddress} years at the address`]),
    n && fact("Neighbour", [n.confirmed ? "Confirmed" : "Did not confirm", n.notes && `: ${n.notes}`]),
    b && fact("Building", [b.type, b.colour && ` · ${b.colour}`, b.gatePresent != null && (b.gatePresent ? " · gate" : " · no gate")]),
    fact("Agent's notes", s.agentNotes),
    fact("Reason", s.reason && [s.reason, s.diagnostics && ` — ${s.diagnostics}`]),
    (s.attempts || []).length > 0 && fact("Earlier attempts", s.attempts.map((t) => `${t.reason} ${when(t.at)}${t.notes ? ": " + t.notes : ""}`).join("; ")));
}

// photos fetches each photo with the session's headers and shows it with
// its tag, capture time, position and distance from the completion.
function photos(s) {
  const list = s.verificationPhotos || [];
  if (!list.length) return h("p", { class: "muted" }, "No photos.");
  return h("div", { class: "photos" }, list.map((p) => {
    const tag = p.tag.replace(/_/g, " ");
    const img = h("img", { alt: `${tag}, taken ${when(p.capturedAt)}` });
    blob(new URL(p.url, location.href).pathname.replace(/^\/ops\/v1/, ""))
      .then((b) => { img.src = URL.createObjectURL(b); })
      .catch((e) => img.replaceWith(h("p", { class: "error" }, e.message)));
    return h("figure", {}, img, h("figcaption", {}, h("strong", {}, tag), h("br", {}), "Taken ", when(p.capturedAt),
      p.latitude != null ? [h("br", {}), coords(p.latitude, p.longitude),
        p.distanceFromCompletionMeters != null && [h("br", {}), h("span", { class: p.distanceFromCompletionMeters > 250 ? "far" : "" },
          `${metres(p.distanceFromCompletionMeters)} from the completion`)]] : [h("br", {}), "No position recorded"]));
  }));
}

// flags explains every flag, most serious first, severity in words.
function flags(list) {
  const rank = { critical: 0, warning: 1, info: 2 };
  const sorted = (list || []).slice().sort((a, b) => (rank[a.severity] ?? 3) - (rank[b.severity] ?? 3));
  return h("section", { class: "card", "aria-labelledby": "rv-flags" }, h("h2", { id: "rv-flags" }, `Flags (${sorted.length})`),
    sorted.length ? h("ul", { class: "flags" }, sorted.map((f) => h("li", { class: "flag " + f.severity },
      h("strong", {}, (severities[f.severity] || f.severity) + ": "), f.message, " ", h("code", { class: "muted" }, f.code))))
      : h("p", { class: "muted" }, "No flags."));
}

// visits is each visit's trail: where it started and ended, the time on
// site and the positions the phone sampled.
function visits(list) {
  return h("section", { class: "card", "aria-labelledby": "rv-trail" }, h("h2", { id: "rv-trail" }, "Position trail"),
    list.length ? list.map((v, i) => h("div", { class: "visit" },
      h("h3", {}, `Visit ${i + 1}: ${v.outcome}`),
      h("dl", { class: "facts" },
        v.checkIn && fact("Check-in", [when(v.checkIn.at), ", ", coords(v.checkIn.latitude, v.checkIn.longitude)]),
        fact("Completion", [when(v.completion.at), ", ", coords(v.completion.latitude, v.completion.longitude)]),
        v.secondsOnSite != null && fact("Time on site", `${Math.round(v.secondsOnSite)} s`),
        fact("Samples", `${(v.samples || []).length} positions`)),
      (v.samples || []).length > 0 && h("ol", { class: "trail" }, v.samples.slice(0, 20).map((p) =>
        h("li", {}, `${when(p.at)}: ${coords(p.latitude, p.longitude)}${p.accuracy ? ` (±${Math.round(p.accuracy)} m)` : ""}`)))))
      : h("p", { class: "muted" }, "No trail recorded."));
}

// record is the agent's record: who, and the last 30 days' visits.
function record(a) {
  if (!a) return null;
  const visits = Object.entries(a.recentVisits || {}).map(([k, n]) => `${n} ${k}`).join(", ") || "none";
  return h("section", { class: "card", "aria-labelledby": "rv-agent" }, h("h2", { id: "rv-agent" }, "The agent's record"),
    h("dl", { class: "facts" }, fact("Agent", `${a.name} (${a.phone})`), fact("Covers", [...a.states, ...a.lgas].join(", ")),
      fact("Status", a.active ? "Active" : "Disabled"), fact("Open tasks", String(a.openTasks)),
      fact(`Visits, last ${a.days} days`, visits), fact("Agent since", when(a.createdAt))));
}

function timeline(list) {
  return h("section", { class: "card", "aria-labelledby": "rv-timeline" }, h("h2", { id: "rv-timeline" }, "Timeline"),
    h("ol", { class: "timeline" }, list.map((t) => h("li", {}, `${t.status} — ${when(t.at)} (${t.by})${t.note ? ": " + t.note : ""}`))));
}

// decide is the decision form: a choice of three, the reason (REJECT),
// the note (REJECT and REVISIT) and another agent (REVISIT), each
// labelled, all usable by keyboard.
function decide(ctx, x) {
  const options = x.kind === "UNSAFE_AREA" ? [["REVISIT", "Send an agent (re-visit)"], ["REJECT", "Reject the address"]]
    : [["APPROVE", "Approve: release the result as submitted"], ["REJECT", "Reject the address"], ["REVISIT", "Send back for a re-visit"]];
  const radios = options.map(([v, label], i) => h("label", { class: "radio" },
    h("input", { type: "radio", name: "decision", value: v, id: "rv-decision-" + v.toLowerCase(), checked: i === 0, onchange: () => sync() }), " ", label));
  const reason = choice([["", "Choose a reason"], ...reasons], "", {});
  const note = h("textarea", { rows: "3", maxlength: "2000" });
  const agent = h("input", { type: "text", autocomplete: "off", placeholder: "agt_…" });
  const reasonField = field("rv-reason", "Rejection reason", reason, { name: "reason" });
  const noteField = field("rv-note", "Note (shown to the lender; on a re-visit, to the agent)", note, { name: "note",
    hint: "Required to reject or send back. Plain text, at most 2,000 characters." });
  const agentField = field("rv-agent-id", "Another agent (optional)", agent, { name: "agentId", hint: "Leave empty to send the same agent." });
  const chosen = () => radios.map((l) => l.querySelector("input")).find((r) => r.checked).value;
  const sync = () => {
    reasonField.hidden = chosen() !== "REJECT";
    agentField.hidden = chosen() !== "REVISIT";
  };
  const submit = h("button", { type: "submit", id: "rv-submit" }, "Record the decision");
  const result = h("div", { role: "status", id: "rv-result" });
  const form = h("form", { class: "card", "aria-labelledby": "rv-decide", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      const body = { decision: chosen() };
      if (body.decision === "REJECT") body.reason = reason.value;
      if (note.value.trim()) body.note = note.value;
      if (body.decision === "REVISIT" && agent.value.trim()) body.agentId = agent.value.trim();
      const d = await ctx.api("POST", "/reviews/" + encodeURIComponent(x.addressId) + "/decision", body);
      form.replaceChildren(h("h2", { id: "rv-decide" }, "Decision recorded"), result,
        h("button", { type: "button", id: "rv-next", onclick: () => ctx.go("reviews") }, "Back to the queue"));
      result.textContent = `Recorded: the address is now ${d.status}.`;
      form.querySelector("#rv-next").focus();
    });
  } }, h("h2", { id: "rv-decide" }, "Decision"),
  h("fieldset", {}, h("legend", {}, "What happens to this address"), radios), reasonField, noteField, agentField, submit);
  sync();
  return form;
}
