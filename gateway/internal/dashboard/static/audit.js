// Audit log (owners and admins): every change made through the dashboard
// or with the organization's keys, and every attempt a role refused,
// newest first, with filters and older entries a cursor away.
import { dash } from "./api.js";
import { h, field, busy, when, table, showError } from "./dom.js";

// The filters, kept while the person opens another page and comes back.
const state = { actor: "", action: "", outcome: "", environment: "", from: "", to: "" };
// Actions offered while typing; the API matches the start of the name,
// so "key." is every key action and "member." every member action.
const known = ["key.", "key.create", "key.roll", "key.revoke", "plan.change", "member.", "member.invite", "member.invite_revoke",
  "member.join", "member.role_change", "member.remove", "member.sign_in", "member.sign_in_failed", "totp.enable", "totp.disable",
  "customer.", "customer.create", "customer.update", "customer.delete", "address.add", "import.", "import.create", "import.start", "document.upload",
  "endpoint.", "endpoint.create", "endpoint.update", "endpoint.delete", "endpoint.rotate_secret", "endpoint.secret_read",
  "endpoint.test", "endpoint.recover", "delivery.retry", "branding.update", "audit.read"];
const envWords = { test: "Sandbox", live: "Live" };

export async function view() {
  // Who can be chosen: the members, and the keys (owners and admins, who
  // read this log, may list them).
  const [{ members }, { keys }] = await Promise.all([dash("GET", "/members"), dash("GET", "/keys").catch(() => ({ keys: [] }))]);
  const rows = h("div", { id: "audit-rows", "aria-live": "polite" });
  const form = filters(members || [], keys || [], rows);
  await load(rows, form);
  return [h("h1", { tabindex: "-1" }, "Audit log"),
    h("p", { class: "muted" }, "Who changed what, with the dashboard or one of your keys, and what a role was refused. Newest first."),
    form, rows];
}

function filters(members, keys, rows) {
  const choice = (options, value) => h("select", {}, options.map(([v, l]) => h("option", { value: v, selected: v === value }, l)));
  const actor = choice([["", "Anyone"], ...members.map((m) => [m.id, `${m.name || m.email} (${m.email})`]),
    ...keys.map((k) => [k.id, `Key ${k.displayPrefix}… (${k.name || "no name"})`])], state.actor);
  const action = h("input", { type: "text", list: "audit-actions", value: state.action, autocomplete: "off", placeholder: "key.create" });
  const outcome = choice([["", "Any outcome"], ["done", "Done"], ["refused", "Refused"]], state.outcome);
  const environment = choice([["", "Both"], ["test", "Sandbox"], ["live", "Live"]], state.environment);
  const from = h("input", { type: "date", value: state.from });
  const to = h("input", { type: "date", value: state.to });
  const submit = h("button", { type: "submit", id: "audit-apply" }, "Show");
  const form = h("form", { class: "card", "aria-label": "Filter the audit log", onsubmit: (ev) => {
    ev.preventDefault();
    Object.assign(state, { actor: actor.value, action: action.value.trim(), outcome: outcome.value, environment: environment.value,
      from: from.value, to: to.value });
    busy(submit, form, () => load(rows, form));
  } }, h("datalist", { id: "audit-actions" }, known.map((a) => h("option", { value: a }))),
  h("div", { class: "row filters" }, field("audit-actor", "Who", actor, { name: "actor" }),
    field("audit-action", "Action", action, { name: "action", hint: "Its start is enough: key. is every key action." }), field("audit-outcome", "Outcome", outcome, { name: "outcome" }),
    field("audit-environment", "Environment", environment, { name: "environment" })),
  h("div", { class: "row filters" }, field("audit-from", "From (your time zone)", from, { name: "from" }),
    field("audit-to", "To, included", to, { name: "to" })),
  submit);
  return form;
}

// query is the API's query for the filters and a cursor: the days are
// whole days of the reader's time zone, the last one included.
function query(cursor) {
  const q = new URLSearchParams({ limit: "50" });
  for (const k of ["actor", "action", "outcome", "environment"]) if (state[k]) q.set(k, state[k]);
  const day = (s, plus) => {
    const d = new Date(s + "T00:00:00");
    if (isNaN(d)) return "";
    d.setDate(d.getDate() + plus);
    return d.toISOString();
  };
  if (state.from && day(state.from, 0)) q.set("from", day(state.from, 0));
  if (state.to && day(state.to, 1)) q.set("to", day(state.to, 1));
  if (cursor) q.set("cursor", cursor);
  return q;
}

async function load(rows, form) {
  let page;
  try {
    page = await dash("GET", "/audit?" + query());
  } catch (e) {
    rows.replaceChildren();
    showError(form, e);
    return;
  }
  const body = h("div", {});
  const more = h("div", { class: "row" });
  const show = (p) => {
    body.append(entries(p.entries || []));
    more.replaceChildren();
    if (p.nextCursor) {
      const b = h("button", { type: "button", class: "secondary", id: "audit-more", onclick: () => busy(b, more, async () => {
        show(await dash("GET", "/audit?" + query(p.nextCursor)));
        document.getElementById("audit-more")?.focus();
      }) }, "Load more");
      more.append(b);
    }
  };
  if (!(page.entries || []).length) {
    rows.replaceChildren(h("p", { class: "card", id: "audit-empty" }, "No entries match these filters."));
    return;
  }
  show(page);
  rows.replaceChildren(body, more);
}

function entries(list) {
  return table("Audit log entries", ["When", "Who", "Action", "Target", "Outcome", "Environment", "IP"], list.map((e) => ({
    attrs: { "data-action": e.action, "data-outcome": e.outcome },
    cells: [when(e.at), who(e.actor || {}), h("code", {}, e.action), e.target ? h("code", {}, e.target) : "—",
      e.outcome === "refused" ? h("strong", { class: "refused" }, "Refused") : e.outcome === "done" ? "Done" : e.outcome,
      envWords[e.environment] || e.environment || "—", e.ip || "—"],
  })));
}

// who names the actor: a member by email and role, a key by its prefix.
function who(a) {
  if (a.type === "key") return h("span", {}, "Key ", h("code", {}, (a.keyPrefix || a.id || "") + "…"));
  return h("span", { class: "email" }, a.email || a.id || "—", a.role && h("span", { class: "muted" }, " · " + a.role));
}
