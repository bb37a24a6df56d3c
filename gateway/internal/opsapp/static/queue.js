// The queue: every open live address by its due time, filtered, with
// overdue and due-today said in words as well as colour; it refreshes
// itself every 15 s (keeping what is selected and where focus was), and
// reassigns the selected addresses to an agent in one call.
import { h, field, busy, heading, when, choice, table, nodes } from "/shared/dom.js";

const REFRESH_MS = 15000;
const statuses = ["PENDING", "ASSIGNED", "IN_PROGRESS", "IN_REVIEW"];
const filterNames = ["state", "lga", "status", "orgId", "agentId", "olderThanHours", "due"];

export const page = {
  id: "queue",
  title: "Queue",
  roles: ["dispatcher"],
  async render(main, ctx) {
    const [areas, agents] = await Promise.all([ctx.api("GET", "/areas"), ctx.api("GET", "/agents")]);
    const filters = Object.fromEntries(filterNames.map((k) => [k, ctx.params[k] || ""]));
    const selected = new Set();
    let cursor = "";
    // The summary is not a live region: a screen reader would read it out
    // every 15 s.
    const summary = h("p", { id: "queue-summary", class: "muted" });
    const body = h("div", { id: "queue-table" });
    const pager = h("div", { class: "row" });
    main.append(heading("Queue"), filterForm(areas.states, agents.agents, filters, () => {
      cursor = "";
      selected.clear();
      ctx.go("queue", filters);
    }), reassignPanel(ctx, agents.agents, selected, () => load()), summary, body, pager);

    // load fetches the page and redraws the table in place; a refresh
    // keeps the selection and puts focus back on the same control.
    async function load() {
      const q = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
      if (cursor) q.set("cursor", cursor);
      const data = await ctx.api("GET", "/queue?" + q);
      if (!ctx.alive()) return;
      const focused = document.activeElement && document.activeElement.closest("#queue-table") && document.activeElement.id;
      const s = data.summary;
      summary.textContent = `${s.total} open · ${s.overdue} overdue · ${s.dueToday} due today · updated ${new Date().toLocaleTimeString("en-GB")}`;
      body.replaceChildren(data.items.length ? rows(data.items, selected) : h("p", { class: "card", id: "queue-empty" }, "No open live address matches."));
      pager.replaceChildren(...nodes([
        cursor && h("button", { type: "button", class: "secondary", onclick: () => { cursor = ""; load(); } }, "First page"),
        data.nextCursor && h("button", { type: "button", class: "secondary", id: "queue-next", onclick: () => { cursor = data.nextCursor; load(); } }, "Next page")]));
      if (focused) document.getElementById(focused)?.focus();
    }
    await load();
    const tick = async () => {
      if (!ctx.alive()) return;
      try {
        await load();
      } catch (e) {
        summary.textContent = "Could not refresh: " + e.message;
      }
      if (ctx.alive()) setTimeout(tick, REFRESH_MS);
    };
    setTimeout(tick, REFRESH_MS);
  },
};

function filterForm(states, agents, filters, apply) {
  const state = choice([["", "Any state"], ...states.map((s) => s.name)], filters.state);
  const lga = h("select", {});
  const fillLGAs = () => {
    const s = states.find((x) => x.name === state.value);
    lga.replaceChildren(h("option", { value: "" }, s ? "Any LGA" : "Pick a state first"),
      ...(s ? s.lgas : []).map((l) => h("option", { value: l }, l)));
    lga.value = s ? filters.lga : "";
    lga.disabled = !s;
  };
  state.addEventListener("change", () => { filters.lga = ""; fillLGAs(); });
  fillLGAs();
  const status = choice([["", "Any open status"], ...statuses.map((s) => [s, s.replace(/_/g, " ").toLowerCase()])], filters.status);
  const agent = choice([["", "Any agent"], ...agents.map((a) => [a.id, a.name])], filters.agentId);
  const org = h("input", { type: "text", value: filters.orgId, placeholder: "org_…", autocomplete: "off" });
  const older = h("input", { type: "number", min: "0", max: "8760", value: filters.olderThanHours, inputmode: "numeric" });
  const due = choice([["", "Any time"], ["overdue", "Overdue"], ["today", "Due today"]], filters.due);
  const submit = h("button", { type: "submit", id: "queue-apply" }, "Apply filters");
  return h("form", { class: "card row filters", id: "queue-filters", onsubmit: (ev) => {
    ev.preventDefault();
    Object.assign(filters, { state: state.value, lga: lga.value, status: status.value, agentId: agent.value,
      orgId: org.value.trim(), olderThanHours: older.value, due: due.value });
    apply();
  } }, field("f-state", "State", state, { name: "state" }), field("f-lga", "LGA", lga, { name: "lga" }),
  field("f-status", "Status", status, { name: "status" }), field("f-agent", "Agent", agent, { name: "agentId" }),
  field("f-org", "Organization id", org, { name: "orgId" }), field("f-older", "Older than (hours)", older, { name: "olderThanHours" }),
  field("f-due", "Due", due, { name: "due" }), submit);
}

// dueCell says overdue and due today in words, not only in colour.
function dueCell(it) {
  const tag = it.overdue ? h("span", { class: "badge overdue" }, "Overdue") : it.dueToday ? h("span", { class: "badge today" }, "Due today") : null;
  return [when(it.dueBy), tag && " ", tag];
}

function rows(items, selected) {
  return table("Open live addresses, soonest due first",
    ["Select", "Address", "Customer", "Status", "Agent", "Created", "Due by"],
    items.map((it) => {
      const box = h("input", { type: "checkbox", id: "sel-" + it.addressId, checked: selected.has(it.addressId),
        "aria-label": "Select " + it.addressLine,
        onchange: (ev) => { if (ev.target.checked) selected.add(it.addressId); else selected.delete(it.addressId); } });
      return {
        attrs: { "data-address": it.addressId, class: it.overdue ? "overdue" : it.dueToday ? "today" : undefined },
        cells: [box, [it.addressLine, h("br", {}), h("span", { class: "muted" }, it.addressId)],
          [it.customerName, h("br", {}), h("span", { class: "muted" }, it.organizationName || it.orgId)],
          it.status.replace(/_/g, " ").toLowerCase(), it.agent ? it.agent.name : h("span", { class: "muted" }, "none yet"),
          when(it.createdAt), dueCell(it)],
      };
    }));
}

// reassignPanel gives the selected addresses to one active agent and
// says, per address, what was refused and why.
function reassignPanel(ctx, agents, selected, reload) {
  const agent = choice([["", "Choose an agent"], ...agents.filter((a) => a.active).map((a) => [a.id, `${a.name} (${a.openTasks} open)`])], "");
  const submit = h("button", { type: "submit", id: "reassign" }, "Reassign selected");
  const out = h("div", { id: "reassign-result", role: "status" });
  const form = h("form", { class: "card row filters", id: "reassign-form", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      if (!selected.size) throw { message: "Select at least one address in the table first." };
      const r = await ctx.api("POST", "/queue/reassign", { addressIds: [...selected], agentId: agent.value });
      const refused = r.results.filter((x) => !x.ok);
      out.replaceChildren(...nodes([h("p", {}, `${r.reassigned} reassigned, ${r.refused} refused.`),
        refused.length > 0 && h("ul", {}, refused.map((x) => h("li", {}, `${x.addressId}: ${x.error.message}`)))]));
      for (const x of r.results) if (x.ok) selected.delete(x.addressId);
      await reload();
    });
  } }, field("reassign-agent", "Reassign to", agent, { name: "agentId" }), submit, out);
  return form;
}
