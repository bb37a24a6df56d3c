// Agents: the field agents with their coverage, open tasks, when each
// was last seen and this week's figures; create and edit (coverage
// picked from the gazetteer's states and LGAs), disable and enable, and
// issue a sign-in code, shown once. The coverage page's "Create an agent
// here" opens this page with the form prefilled (#/agents?new=1&state=…&lga=…).
import { h, field, busy, heading, when, table } from "/shared/dom.js";

export const page = {
  id: "agents",
  title: "Agents",
  roles: ["dispatcher"],
  async render(main, ctx) {
    const [areas, list] = await Promise.all([ctx.api("GET", "/areas"), ctx.api("GET", "/agents")]);
    const formSlot = h("div", { id: "agent-form-slot" });
    const listSlot = h("div", { id: "agents-list" });
    const notice = h("div", { id: "agents-notice", role: "status" });
    const refresh = async () => {
      const fresh = await ctx.api("GET", "/agents");
      if (ctx.alive()) listSlot.replaceChildren(agentTable(fresh.agents, actions));
    };
    const openForm = (agent, prefill) => {
      formSlot.replaceChildren(agentForm(ctx, areas.states, agent, prefill, async (saved, created) => {
        formSlot.replaceChildren();
        notice.replaceChildren(h("p", { class: "card notice", id: "agent-saved" },
          `${saved.name} ${created ? "created" : "saved"}: ${saved.openTasks} open task${saved.openTasks === 1 ? "" : "s"}.`,
          created && saved.openTasks ? " Waiting work in the area was assigned at once." : ""));
        await refresh();
      }, () => formSlot.replaceChildren()));
      formSlot.querySelector("input")?.focus();
    };
    const actions = { edit: (a) => openForm(a, null), toggle: async (a, button) => {
      await busy(button, listSlot, async () => {
        await ctx.api("POST", `/agents/${encodeURIComponent(a.id)}/${a.active ? "disable" : "enable"}`);
        notice.replaceChildren(h("p", { class: "card notice" }, `${a.name} ${a.active ? "disabled" : "enabled"}.`));
        await refresh();
      });
    }, code: async (a, button) => {
      await busy(button, listSlot, async () => {
        const c = await ctx.api("POST", `/agents/${encodeURIComponent(a.id)}/code`);
        notice.replaceChildren(h("section", { class: "card once", id: "agent-code", "aria-labelledby": "code-title" },
          h("h2", { id: "code-title" }, `Sign-in code for ${a.name}`),
          h("p", { class: "secret", id: "code-value" }, c.code),
          h("p", {}, `Give it to ${a.name} in person or by phone. It works once, until ${when(c.expiresAt)}, and is not shown again.`)));
        notice.querySelector("h2").setAttribute("tabindex", "-1");
        notice.querySelector("h2").focus();
      });
    } };
    main.append(heading("Agents"),
      h("button", { type: "button", id: "agent-new", onclick: () => openForm(null, null) }, "New agent"),
      notice, formSlot, listSlot);
    listSlot.append(agentTable(list.agents, actions));
    if (ctx.params.new) openForm(null, { state: ctx.params.state, lga: ctx.params.lga });
  },
};

function pct(x) {
  return x == null ? "—" : Math.round(x * 100) + " %";
}

function minutes(secs) {
  return secs == null ? "—" : secs < 90 ? Math.round(secs) + " s" : Math.round(secs / 60) + " min";
}

function agentTable(agents, actions) {
  if (!agents.length) return h("p", { class: "card" }, "No agents yet.");
  return table("Field agents and this week's figures",
    ["Agent", "Coverage", "Status", "Open tasks", "Last seen", "Visits this week", "Median on site", "Flagged", "Rejected", "No access", ""],
    agents.map((a) => {
      const w = a.week || {};
      const edit = h("button", { type: "button", class: "small secondary", onclick: () => actions.edit(a) }, "Edit");
      const toggle = h("button", { type: "button", class: a.active ? "small danger" : "small", onclick: (ev) => actions.toggle(a, ev.target) },
        a.active ? "Disable" : "Enable");
      const code = a.active && h("button", { type: "button", class: "small", onclick: (ev) => actions.code(a, ev.target) }, "Issue code");
      for (const b of [edit, toggle, code]) if (b) b.setAttribute("aria-label", `${b.textContent} ${a.name}`);
      return {
        attrs: { "data-agent": a.id },
        cells: [[h("strong", {}, a.name), h("br", {}), a.phone], [a.states.join(", "), a.lgas.length ? h("span", { class: "muted" }, " (" + a.lgas.join(", ") + ")") : ""],
          h("span", { class: "badge " + (a.active ? "active" : "disabled") }, a.active ? "Active" : "Disabled"),
          String(a.openTasks), when(a.lastSeenAt), String(w.visits ?? 0), minutes(w.medianSecondsOnSite), pct(w.flaggedShare),
          pct(w.rejectedShare), pct(w.noAccessRate), h("div", { class: "row" }, edit, toggle, code)],
      };
    }));
}

// multi is a labelled <select multiple> (keyboard: arrows and
// Ctrl/Shift+Space) of options with the chosen ones selected.
function multi(options, chosen) {
  return h("select", { multiple: true, size: "8" }, options.map((o) => h("option", { value: o, selected: chosen.includes(o) }, o)));
}

function values(select) {
  return [...select.selectedOptions].map((o) => o.value);
}

// agentForm creates (agent null) or edits an agent; prefill {state, lga}
// comes from the coverage page.
function agentForm(ctx, states, agent, prefill, done, cancel) {
  const chosenStates = agent ? agent.states : prefill && prefill.state ? [prefill.state] : [];
  const chosenLGAs = agent ? agent.lgas : prefill && prefill.lga ? [prefill.lga] : [];
  const name = h("input", { type: "text", autocomplete: "off", value: agent ? agent.name : "", required: true });
  const phone = h("input", { type: "tel", autocomplete: "off", value: agent ? agent.phone : "", required: true, inputmode: "tel" });
  const stateSel = multi(states.map((s) => s.name), chosenStates);
  const lgaSel = h("select", { multiple: true, size: "8" });
  const fillLGAs = () => {
    const keep = new Set([...values(lgaSel), ...chosenLGAs.splice(0)]);
    const picked = values(stateSel);
    lgaSel.replaceChildren(...states.filter((s) => picked.includes(s.name)).map((s) =>
      h("optgroup", { label: s.name }, s.lgas.map((l) => h("option", { value: l, selected: keep.has(l) }, l)))));
  };
  stateSel.addEventListener("change", fillLGAs);
  fillLGAs();
  const submit = h("button", { type: "submit", id: "agent-save" }, agent ? "Save changes" : "Create agent");
  const form = h("form", { class: "card", id: "agent-form", "aria-labelledby": "agent-form-title", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      const body = { name: name.value, phone: phone.value, states: values(stateSel), lgas: values(lgaSel) };
      const saved = agent ? await ctx.api("PATCH", `/agents/${encodeURIComponent(agent.id)}`, body) : await ctx.api("POST", "/agents", body);
      await done(saved, !agent);
    });
  } }, h("h2", { id: "agent-form-title" }, agent ? `Edit ${agent.name}` : "New agent"),
  field("agent-name", "Name", name, { name: "name" }),
  field("agent-phone", "Phone", phone, { name: "phone", hint: "A Nigerian mobile: 0803 123 4567 or +234 803 123 4567." }),
  field("agent-states", "States covered", stateSel, { name: "states", hint: "Choose one or more (Ctrl or Shift with a click or Space)." }),
  field("agent-lgas", "LGAs offered first (optional)", lgaSel, { name: "lgas", hint: "Within the chosen states; the agent still takes work anywhere in them." }),
  submit, h("button", { type: "button", class: "secondary", onclick: cancel }, "Cancel"));
  return form;
}
