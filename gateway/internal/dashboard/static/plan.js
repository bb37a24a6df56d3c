// Plan and usage: the plan and its limits, today's requests against the
// daily quota, 30 days of requests, this month's billable verifications
// and invoice preview, and a plan change priced before it is confirmed.
import { dash } from "./api.js";
import { h, busy, money, table } from "./dom.js";
import { can } from "./roles.js";

const order = ["developer", "growth", "enterprise"];

export async function view({ me, refresh, reloadMe }) {
  const now = new Date();
  const month = (d) => d.toISOString().slice(0, 7);
  const before = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 29));
  const [cur, prev] = await Promise.all([dash("GET", "/usage"),
    month(before) === month(now) ? null : dash("GET", "/usage?month=" + month(before))]);
  const perDay = new Map([...(prev ? prev.requestsPerDay : []), ...cur.requestsPerDay].map((d) => [d.date, d.requests]));
  const days = Array.from({ length: 30 }, (_, i) => {
    const d = new Date(before.getTime() + i * 86400000).toISOString().slice(0, 10);
    return { date: d, requests: perDay.get(d) || 0 };
  });
  const plan = me.organization.planDetails;
  const today = days[29].requests;
  return [
    h("h1", { tabindex: "-1" }, "Plan and usage"),
    h("div", { class: "stats" },
      h("section", { class: "card", "aria-labelledby": "plan-now" }, h("h2", { id: "plan-now" }, "Current plan"),
        h("p", { class: "big", id: "current-plan" }, plan.name), limits(plan)),
      h("section", { class: "card", "aria-labelledby": "today" }, h("h2", { id: "today" }, "Requests today"),
        h("p", { class: "big" }, plan.dailyRequests ? `${today} of ${plan.dailyRequests}` : `${today}`),
        plan.dailyRequests ? h("div", { class: "bar", role: "img", "aria-label": `${Math.round((100 * today) / plan.dailyRequests)}% of the daily quota` },
          fill(Math.min(100, (100 * today) / plan.dailyRequests))) : h("p", { class: "muted" }, "No daily cap"),
        h("p", { class: "muted" }, "Both environments together; the quota resets at 00:00 UTC.")),
      h("section", { class: "card", "aria-labelledby": "billable" }, h("h2", { id: "billable" }, "Billable verifications this month"),
        h("p", { class: "big" }, String(cur.billableVerifications)),
        h("p", { class: "muted" }, "Live addresses that reached Verified or Rejected. Sandbox is never billed."))),
    h("section", { class: "card", "aria-labelledby": "chart-title" }, h("h2", { id: "chart-title" }, "Requests, last 30 days"), chart(days)),
    h("section", { class: "card", "aria-labelledby": "invoice-title" }, h("h2", { id: "invoice-title" }, `Invoice preview, ${cur.month}`),
      invoice(cur.invoice), h("p", { class: "muted" }, cur.prorationRule)),
    // Only owners and admins change the plan (PUT /plan); the others see the plans, not the buttons.
    h("h2", {}, can.plan(me) ? "Change plan" : "Plans"),
    h("div", { class: "stats" }, order.filter((id) => me.plans[id]).map((id) => planCard(me, me.plans[id], refresh, reloadMe))),
    !can.plan(me) && h("p", { class: "muted", id: "plan-readonly" }, "An owner or admin of your organization changes the plan."),
  ];
}

// fill sets the width through the CSSOM: the page's policy refuses
// inline style attributes.
function fill(percent) {
  const s = h("span", {});
  s.style.width = percent + "%";
  return s;
}

function limits(p) {
  return h("ul", {},
    h("li", {}, p.baseFeeCents ? `${money(p.baseFeeCents)} a month` : "Free"),
    h("li", {}, p.unitPriceCents ? `${money(p.unitPriceCents)} per live verification` : "No live verifications"),
    h("li", {}, p.dailyRequests ? `${p.dailyRequests.toLocaleString("en-US")} requests a day` : "No daily request cap"),
    h("li", {}, p.testRecordLimit ? `${p.testRecordLimit} sandbox customers` : "Unlimited sandbox customers"),
    h("li", {}, p.liveAccess ? "Live access" : "Sandbox only"),
    p.whiteLabel && h("li", {}, "White-label reports"));
}

function invoice(inv) {
  return [table("Invoice lines", ["Line", "Quantity", "Amount"], inv.lines.map((l) => ({ cells: [l.description, String(l.quantity), money(l.amountCents)] }))),
    h("p", {}, h("strong", {}, `Total ${money(inv.totalCents)}`), ` (plan ${money(inv.baseFeeCents)}, usage ${money(inv.usageCents)})`)];
}

// chart draws the 30 days as inline SVG bars; the label says the figures
// a screen reader needs, and the table under it has every day.
function chart(days) {
  const W = 600, H = 160, max = Math.max(1, ...days.map((d) => d.requests)), bw = W / days.length;
  const ns = "http://www.w3.org/2000/svg";
  const el = (tag, attrs, ...kids) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    e.append(...kids);
    return e;
  };
  const total = days.reduce((n, d) => n + d.requests, 0);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H + 20}`, class: "chart", role: "img",
    "aria-label": `${total} requests in the last 30 days; at most ${max === 1 && total === 0 ? 0 : max} in a day` },
  ...days.map((d, i) => {
    const bh = Math.round((d.requests / max) * H);
    return el("rect", { x: i * bw + 1, y: H - bh, width: bw - 2, height: Math.max(bh, d.requests ? 1 : 0), fill: i === 29 ? "#f59e0b" : "#0b5394" },
      el("title", {}, `${d.date}: ${d.requests}`));
  }),
  el("line", { x1: 0, y1: H, x2: W, y2: H, stroke: "#6b7280" }),
  el("text", { x: 0, y: H + 16, "font-size": 12, fill: "#4b5563" }, days[0].date),
  el("text", { x: W, y: H + 16, "font-size": 12, fill: "#4b5563", "text-anchor": "end" }, "today"));
  return [svg, h("details", {}, h("summary", {}, "Every day's figure"),
    table("Requests per day", ["Day", "Requests"], days.map((d) => ({ cells: [d.date, String(d.requests)] }))))];
}

// planCard offers a plan; choosing it first shows this month's invoice
// with the change, and only the confirmation changes the plan.
function planCard(me, p, refresh, reloadMe) {
  const current = me.organization.plan === p.id;
  if (!can.plan(me)) {
    return h("section", { class: "card", "aria-labelledby": "plan-" + p.id }, h("h3", { id: "plan-" + p.id }, p.name), limits(p),
      current && h("p", { class: "big" }, "Your plan"));
  }
  const slot = h("div", {});
  const choose = h("button", { type: "button", id: "choose-" + p.id, disabled: current, onclick: () => busy(choose, slot, async () => {
    const pr = await dash("GET", "/plan/preview?plan=" + p.id);
    const diff = pr.differenceCents;
    const confirm = h("button", { type: "button", id: "confirm-plan", onclick: () => busy(confirm, slot, async () => {
      await dash("PUT", "/plan", { plan: p.id });
      await reloadMe();
      refresh();
    }) }, `Confirm: switch to ${p.name}`);
    slot.replaceChildren(h("div", { class: "notice card", role: "region", "aria-label": `Switch to ${p.name}` },
      h("p", { id: "proration" }, `Switching now changes this month's invoice from ${money(pr.current.totalCents)} to ${money(pr.proposed.totalCents)} `,
        h("strong", {}, `(${diff >= 0 ? "+" : "−"}${money(Math.abs(diff))})`), ". Today and the rest of the month are billed at the new plan."),
      invoice(pr.proposed), confirm,
      h("button", { type: "button", class: "secondary", onclick: () => { slot.replaceChildren(); choose.focus(); } }, "Cancel")));
    confirm.focus();
  }) }, current ? "Your plan" : `${order.indexOf(p.id) > order.indexOf(me.organization.plan) ? "Upgrade" : "Downgrade"} to ${p.name}`);
  return h("section", { class: "card", "aria-labelledby": "plan-" + p.id }, h("h3", { id: "plan-" + p.id }, p.name), limits(p), choose, slot);
}
