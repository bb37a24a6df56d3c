// Audit log (admins only): every staff action from every service, and
// every change made with the operators' admin token, newest first. The
// filters live in the page's address (#/audit?action=staff.), so a link
// from elsewhere can open a filtered log.
import { h, field, busy, table, when, heading, choice } from "/shared/dom.js";

export const page = { id: "audit", title: "Audit log", roles: ["admin"], render };

const prefixes = ["staff.", "org.", "agent.", "task.", "review."];

async function render(main, ctx) {
  const p = ctx.params;
  const [{ staff }, first] = await Promise.all([ctx.api("GET", "/staff"), ctx.api("GET", "/audit?" + query(p))]);
  const rows = h("div", { id: "audit-rows" });
  const more = h("div", {});
  const show = (page) => {
    rows.append(entries(page.entries));
    more.replaceChildren();
    if (page.nextCursor) {
      const b = h("button", { type: "button", class: "secondary", id: "audit-more", onclick: () => busy(b, more, async () => {
        show(await ctx.api("GET", "/audit?" + query({ ...p, cursor: page.nextCursor })));
      }) }, "Show older entries");
      more.append(b);
    }
  };
  if (first.entries.length === 0) rows.append(h("p", { class: "card" }, "No entries match these filters."));
  else show(first);
  main.append(heading("Audit log"), filters(ctx, staff), rows, more);
}

// query turns the page's parameters into the API's: the dates are whole
// UTC days, until included.
function query(p) {
  const q = new URLSearchParams();
  for (const k of ["actorId", "action", "orgId", "cursor"]) if (p[k]) q.set(k, p[k]);
  if (p.since) q.set("since", p.since + "T00:00:00Z");
  if (p.until) {
    const d = new Date(p.until + "T00:00:00Z");
    if (!isNaN(d)) q.set("until", new Date(d.getTime() + 86400000).toISOString().replace(".000", ""));
  }
  q.set("limit", "50");
  return q.toString();
}

function filters(ctx, staff) {
  const p = ctx.params;
  const actor = choice([["", "Anyone"], ...staff.map((m) => [m.id, m.name + " (" + m.role + ")"]),
    ["admin-token", "The operators' admin token"]], p.actorId || "");
  const action = choice([["", "Every action"], ...prefixes.map((x) => [x, x + "*"])], p.action || "");
  const org = h("input", { type: "text", value: p.orgId || "", placeholder: "org_…", autocomplete: "off" });
  const since = h("input", { type: "date", value: p.since || "" });
  const until = h("input", { type: "date", value: p.until || "" });
  const submit = h("button", { type: "submit", id: "audit-apply" }, "Show");
  const form = h("form", { class: "card row filters", "aria-label": "Filter the log", onsubmit: (ev) => {
    ev.preventDefault();
    ctx.go("audit", { actorId: actor.value, action: action.value, orgId: org.value.trim(), since: since.value, until: until.value });
  } }, field("audit-actor", "Who", actor), field("audit-action", "Action", action),
  field("audit-org", "Organization id", org), field("audit-since", "From (UTC day)", since), field("audit-until", "To (UTC day)", until), submit);
  return form;
}

function entries(list) {
  return table("Audit log entries", ["When", "Who", "Action", "Target", "Organization", "Details", "From"], list.map((e) => ({
    attrs: { "data-action": e.action },
    cells: [when(e.at), h("div", {}, e.actorName || e.actorId, e.role && h("span", { class: "muted" }, " · " + e.role)),
      h("code", { class: "action" }, e.action), e.target ? h("code", {}, e.target) : "", e.orgId ? h("code", {}, e.orgId) : "",
      details(e.details), e.ip || ""],
  })));
}

// details shows an entry's details as "name: value" lines; text only.
function details(d) {
  const keys = Object.keys(d || {});
  if (keys.length === 0) return "";
  return h("ul", { class: "flags" }, keys.map((k) => h("li", {}, k + ": " + (typeof d[k] === "object" ? JSON.stringify(d[k]) : String(d[k])))));
}
