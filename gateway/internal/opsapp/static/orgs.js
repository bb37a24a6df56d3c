// Organizations: every lender with its plan (read only here), its review
// policy and its SLA target. Any staff role reads them; admins change the
// policy and the target, each change audited.
import { h, busy, table, heading, choice } from "/shared/dom.js";

export const page = { id: "orgs", title: "Organizations", roles: ["admin", "dispatcher", "reviewer"], render };

const policies = [["NONE", "None: results go straight to the lender"], ["FLAGGED", "Flagged: results with a warning are held"],
  ["ALL", "All: every live result is held"]];
const policyWords = Object.fromEntries(policies);

async function render(main, ctx) {
  const admin = ctx.me.role === "admin";
  const rows = h("div", { id: "org-rows" });
  const more = h("div", {});
  const show = (page) => {
    rows.append(orgTable(page.organizations, ctx, admin));
    more.replaceChildren();
    if (page.nextCursor) {
      const b = h("button", { type: "button", class: "secondary", id: "orgs-more", onclick: () => busy(b, more, async () => {
        show(await ctx.api("GET", "/orgs?limit=100&cursor=" + encodeURIComponent(page.nextCursor)));
      }) }, "Show more");
      more.append(b);
    }
  };
  show(await ctx.api("GET", "/orgs?limit=100"));
  main.append(heading("Organizations"),
    h("p", { class: "muted" }, admin
      ? "The review policy decides which live results wait for a reviewer; the SLA target (1 to 720 hours) sets each address's due time."
      : "Only an admin changes the review policy or the SLA target."),
    rows, more);
}

function orgTable(list, ctx, admin) {
  return table("Organizations", ["Organization", "Plan", "Review policy", "SLA target", admin ? "Save" : ""], list.map((o) => {
    if (!admin) {
      return { attrs: { "data-id": o.id }, cells: [name(o), o.plan, policyWords[o.reviewPolicy] || o.reviewPolicy, o.slaHours + " hours", ""] };
    }
    const policy = choice(policies, o.reviewPolicy, { id: "policy-" + o.id });
    const sla = h("input", { type: "number", min: "1", max: "720", step: "1", value: String(o.slaHours), id: "sla-" + o.id, inputmode: "numeric" });
    const status = h("div", { role: "status", class: "muted", id: "status-" + o.id });
    const cell = h("div", { class: "actions" });
    const save = h("button", { type: "button", class: "small", "aria-label": "Save " + o.name, onclick: () => busy(save, cell, async () => {
      status.textContent = "";
      try {
        const saved = await ctx.api("PATCH", "/orgs/" + encodeURIComponent(o.id),
          { reviewPolicy: policy.value, slaHours: Number(sla.value) });
        status.textContent = "Saved: " + saved.reviewPolicy + ", " + saved.slaHours + " hours";
      } catch (e) {
        // Each detail names its field; put them in words beside the button.
        if (e.details.length) e.message = e.details.map((d) => (d.field === "slaHours" ? "SLA target " : "Review policy ") + d.message).join("; ");
        throw e;
      }
    }) }, "Save");
    cell.append(save, status);
    return { attrs: { "data-id": o.id }, cells: [name(o), o.plan,
      [h("label", { for: policy.id, class: "visually-hidden" }, "Review policy of " + o.name), policy],
      [h("label", { for: sla.id, class: "visually-hidden" }, "SLA target of " + o.name + ", in hours"), sla], cell] };
  }));
}

function name(o) {
  return h("div", {}, o.name, h("br", {}), h("code", { class: "muted" }, o.id));
}
