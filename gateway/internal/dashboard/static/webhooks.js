// Webhooks: endpoints (add, edit, disable, delete, reveal and rotate the
// secret, send a test event) and each endpoint's delivery log with a retry
// button per delivery.
import { api } from "./api.js";
import { h, field, busy, when, table, showError, nodes, copyable } from "./dom.js";
import { can } from "./roles.js";

const events = ["verification.completed", "verification.rejected", "verification.address.updated",
  // Stage events (api/openapi.yaml, webhooks): one customer's arrive in order.
  "address.assigned", "address.checked_in", "address.attempted", "address.verified", "address.rejected", "report.ready"];
const state = { secret: null }; // a secret just created, shown once on the endpoint's page

// write: the member may change endpoints and see secrets (developer and
// up); a viewer reads the endpoints and their delivery logs only.
export function view({ me, params }) {
  return params[0] ? endpoint(params[0], can.write(me)) : list(can.write(me));
}

async function list(write) {
  const { webhooks } = await api("GET", "/webhooks");
  const url = h("input", { type: "url", placeholder: "https://hooks.example.com/kyc", required: true });
  const description = h("input", { type: "text", maxlength: "500" });
  const submit = h("button", { type: "submit", id: "add-endpoint" }, "Add endpoint");
  const picks = eventPicker(["*"]);
  const form = h("form", { class: "card", "aria-labelledby": "add-title", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      const e = await api("POST", "/webhooks", { url: url.value, description: description.value, events: picks.value() });
      state.secret = { id: e.id, secret: e.secret };
      location.hash = "#/webhooks/" + encodeURIComponent(e.id);
    });
  } }, h("h2", { id: "add-title" }, "Add an endpoint"),
  field("hook-url", "URL", url, { name: "url", hint: "Live endpoints need https. The platform signs every request (Standard Webhooks)." }),
  field("hook-description", "Description", description, { name: "description" }), picks.el, submit);
  return [h("h1", { tabindex: "-1" }, "Webhooks"), write && form, h("h2", {}, "Endpoints"),
    webhooks.length ? table("Webhook endpoints", ["URL", "Events", "State", "Created"], webhooks.map((e) => ({
      cells: [h("a", { href: "#/webhooks/" + encodeURIComponent(e.id) }, e.url), e.events.join(", "), stateOf(e), when(e.createdAt)],
    }))) : h("p", { class: "muted" }, "No endpoints yet.")];
}

function stateOf(e) {
  if (!e.enabled) return "Disabled" + (e.disabledReason ? ` (${e.disabledReason})` : "");
  return e.failingSince ? `Failing since ${when(e.failingSince)}` : "Enabled";
}

// eventPicker: "every event" or a chosen few.
function eventPicker(chosen) {
  const all = h("input", { type: "checkbox", checked: chosen.includes("*") });
  const boxes = events.map((ev) => h("input", { type: "checkbox", value: ev, checked: chosen.includes(ev) }));
  const el = h("fieldset", { "data-field": "events", id: "hook-events", "aria-describedby": "hook-events-err" }, h("legend", {}, "Events"),
    h("label", { class: "check" }, all, "Every event (also future ones)"),
    boxes.map((b) => h("label", { class: "check" }, b, b.value)), h("div", { id: "hook-events-err", class: "error", role: "alert" }));
  return { el, value: () => (all.checked ? ["*"] : boxes.filter((b) => b.checked).map((b) => b.value)) };
}

async function endpoint(id, write) {
  const back = h("p", {}, h("a", { href: "#/webhooks" }, "← All endpoints"));
  let e;
  try {
    e = await api("GET", "/webhooks/" + encodeURIComponent(id));
  } catch (err) {
    return [back, h("h1", { tabindex: "-1" }, "Webhook endpoint"), h("p", { class: "error", role: "alert" }, err.status === 404 ? "Endpoint not found." : err.message)];
  }
  const path = "/webhooks/" + encodeURIComponent(id);
  const secretSlot = h("div", { id: "secret-slot" });
  const head = h("section", { class: "card", id: "endpoint" });
  const log = h("section", { class: "card", "aria-labelledby": "log-title" });
  const draw = (e) => head.replaceChildren(...nodes(details(e, path, draw, secretSlot, log, write)));
  log.write = write;
  draw(e);
  if (state.secret && state.secret.id === id) showSecret(secretSlot, state.secret.secret, "Endpoint added. Its signing secret:");
  state.secret = null;
  await deliveries(log, path);
  return [back, h("h1", { tabindex: "-1" }, e.url), head, secretSlot, log];
}

function details(e, path, draw, secretSlot, log, write) {
  const actions = h("div", { class: "row" });
  const act = (label, id, fn, cls) => {
    const b = h("button", { type: "button", id, class: cls, onclick: () => busy(b, actions, fn) }, label);
    return b;
  };
  actions.append(
    act("Send test event", "send-test", async () => {
      await api("POST", path + "/test");
      await deliveries(log, path);
    }),
    act("Reveal secret", "reveal-secret", async () => showSecret(secretSlot, (await api("GET", path + "/secret")).secret, "Signing secret:"), "secondary"),
    act("Rotate secret", "rotate-secret", () => confirmIn(actions, "Rotate the secret? The old one keeps signing beside the new one for 24 hours.", "Rotate", async () => {
      const r = await api("POST", path + "/rotate-secret");
      showSecret(secretSlot, r.secret, "New signing secret (the previous one works for 24 hours):");
      draw(r);
    }), "secondary"),
    act("Edit", "edit-endpoint", () => edit(e, path, draw), "secondary"),
    act(e.enabled ? "Disable" : "Enable", "toggle-endpoint", async () => draw(await api("PATCH", path, { enabled: !e.enabled })), "secondary"),
    act("Delete", "delete-endpoint", () => confirmIn(actions, "Delete this endpoint? Nothing more is sent to it.", "Delete endpoint", async () => {
      await api("DELETE", path);
      location.hash = "#/webhooks";
    }), "danger"));
  return [h("dl", { class: "facts" },
    h("dt", {}, "State"), h("dd", { id: "endpoint-state" }, stateOf(e)),
    h("dt", {}, "Events"), h("dd", {}, e.events.join(", ")),
    h("dt", {}, "Description"), h("dd", {}, e.description || "—"),
    h("dt", {}, "Created"), h("dd", {}, when(e.createdAt))), write && actions];
}

// confirmIn asks before an action that cannot be taken back.
function confirmIn(box, question, label, fn) {
  const from = document.activeElement;
  const yes = h("button", { type: "button", class: "danger", id: "confirm-action", onclick: () => busy(yes, box, fn) }, label);
  const panel = h("div", { class: "card notice", role: "group", "aria-label": question }, h("p", {}, question), yes,
    h("button", { type: "button", class: "secondary", onclick: () => { panel.remove(); from.focus(); } }, "Cancel"));
  box.after(panel);
  yes.focus();
}

function showSecret(slot, secret, title) {
  const box = copyable("hook-secret", secret, { extra: h("button", { type: "button", class: "secondary", onclick: () => slot.replaceChildren() }, "Hide") });
  slot.replaceChildren(h("section", { class: "card notice" }, h("label", { for: "hook-secret" }, title), box.nodes));
  box.input.focus();
}

function edit(e, path, draw) {
  const url = h("input", { type: "url", value: e.url, required: true });
  const description = h("input", { type: "text", value: e.description, maxlength: "500" });
  const picks = eventPicker(e.events);
  const save = h("button", { type: "submit", id: "save-endpoint" }, "Save");
  const form = h("form", { onsubmit: (ev) => {
    ev.preventDefault();
    busy(save, form, async () => draw(await api("PATCH", path, { url: url.value, description: description.value, events: picks.value() })));
  } }, h("h2", {}, "Edit endpoint"), field("edit-url", "URL", url, { name: "url" }),
  field("edit-description", "Description", description, { name: "description" }), picks.el, save,
  h("button", { type: "button", class: "secondary", onclick: () => draw(e) }, "Cancel"));
  document.getElementById("endpoint").replaceChildren(form);
  url.focus();
}

const words = { pending: "Pending", retrying: "Retrying", succeeded: "Succeeded", exhausted: "Failed" };

// deliveries draws the log, 20 at a time, filtered by status as chosen
// (kept on the log element while the page is open; log.cursors holds the
// cursors of the pages before this one). While a delivery is still pending
// or being retried, or a manual retry has not made its attempt yet
// (watch), it redraws every second until the page is left.
async function deliveries(log, path, watch) {
  clearTimeout(log.timer);
  log.cursors = log.cursors || [""];
  const q = new URLSearchParams({ limit: "20" });
  if (log.status) q.set("status", log.status);
  if (log.cursors.at(-1)) q.set("cursor", log.cursors.at(-1));
  let page;
  try {
    page = await api("GET", path + "/deliveries?" + q);
  } catch (e) {
    showError(log, e);
    return;
  }
  const filter = h("select", { onchange: () => {
    log.status = filter.value;
    log.cursors = [""];
    deliveries(log, path);
  } }, h("option", { value: "" }, "Any status"),
  Object.entries(words).map(([v, label]) => h("option", { value: v, selected: log.status === v }, label)));
  const move = (dir) => () => {
    if (dir > 0) log.cursors.push(page.pagination.nextCursor);
    else log.cursors.pop();
    deliveries(log, path);
  };
  const rows = page.deliveries.map((d) => {
    const last = d.attempts[d.attempts.length - 1];
    const cell = h("div", {});
    const retry = h("button", { type: "button", class: "secondary small", "aria-label": `Retry ${d.eventType} of ${when(d.createdAt)}`,
      onclick: () => busy(retry, cell, async () => {
        await api("POST", `${path}/deliveries/${encodeURIComponent(d.id)}/retry`);
        await deliveries(log, path, { id: d.id, attempts: d.attemptCount, left: 30 });
      }) }, "Retry");
    // A retry is a write: a viewer sees the log without the button.
    cell.append(log.write ? retry : "—");
    return { attrs: { "data-delivery": d.id, "data-status": d.status }, cells: [d.eventType, words[d.status] || d.status, String(d.attemptCount),
      last ? (last.statusCode ? String(last.statusCode) : last.error || "no answer") : "—", last ? `${last.latencyMs} ms` : "—",
      last && last.responseBody ? h("code", {}, last.responseBody.slice(0, 200)) : "—", when(d.createdAt), cell] };
  });
  const first = (log.cursors.length - 1) * 20 + 1;
  log.replaceChildren(...nodes([h("h2", { id: "log-title" }, "Delivery log"),
    h("div", { class: "row filters" }, field("delivery-status", "Show", filter),
      h("button", { type: "button", class: "secondary small", id: "refresh-log", onclick: () => deliveries(log, path) }, "Refresh")),
    rows.length ? [h("p", { class: "muted", id: "log-range" }, `Deliveries ${first}-${first + rows.length - 1}, newest first`),
      table("Deliveries", ["Event", "Status", "Attempts", "Last answer", "Latency", "Response", "Created", "Retry"], rows)]
      : h("p", { class: "muted" }, log.status ? "No deliveries with this status." : "Nothing sent yet. Send a test event to check the endpoint."),
    h("div", { class: "row" },
      log.cursors.length > 1 && h("button", { type: "button", class: "secondary", id: "newer-deliveries", onclick: move(-1) }, "Newer deliveries"),
      page.pagination.hasNext && h("button", { type: "button", class: "secondary", id: "older-deliveries", onclick: move(1) }, "Older deliveries"))]));
  const waiting = watch && watch.left > 0 && page.deliveries.some((d) => d.id === watch.id && d.attemptCount <= watch.attempts);
  if (waiting || page.deliveries.some((d) => d.status === "pending" || d.status === "retrying")) {
    const next = waiting ? { ...watch, left: watch.left - 1 } : undefined;
    log.timer = setTimeout(() => log.isConnected && deliveries(log, path, next), 1000);
  }
}
