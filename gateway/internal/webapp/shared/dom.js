// DOM helpers the dashboard and the operations console share, served
// once at /shared/dom.js (package webapp/shared). h builds elements
// without innerHTML, so a customer's name, an agent's note or an audit
// entry's details can never become markup. The agent app keeps its own
// copy on purpose: its service worker keeps /agent/ offline, and a module
// from outside that scope would not be.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "value" || k === "checked" || k === "disabled" || k === "selected") el[k] = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  el.append(...nodes(children));
  return el;
}

export function nodes(x) {
  return [x].flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false && c !== "")
    .map((c) => (c instanceof Node ? c : String(c)));
}

// field is a labelled control with a slot for the API's complaint about
// it: name is the API's field name, so an error detail lands beside the
// control that caused it.
export function field(id, label, input, { name, hint } = {}) {
  input.id = id;
  input.dataset.field = name || id;
  const described = [hint && id + "-hint", id + "-err"].filter(Boolean).join(" ");
  input.setAttribute("aria-describedby", described);
  return h("div", { class: "field" }, h("label", { for: id }, label), input,
    hint && h("div", { id: id + "-hint", class: "muted" }, hint), h("div", { id: id + "-err", class: "error", role: "alert" }));
}

// showError puts an API error in words next to what caused it: each
// detail beside its field, the message at the top of the form (or of
// whatever element holds the action). err null clears them.
export function showError(scope, err) {
  for (const el of scope.querySelectorAll(".error")) el.textContent = "";
  for (const el of scope.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  if (!err) return;
  let summary = scope.querySelector(".form-error");
  if (!summary) {
    summary = h("div", { class: "form-error error", role: "alert" });
    scope.prepend(summary);
  }
  summary.textContent = err.message;
  const more = summaryHint(err);
  if (more) summary.append(" ", more);
  for (const d of err.details || []) {
    const input = scope.querySelector(`[data-field="${CSS.escape(d.field)}"]`);
    if (!input) continue;
    input.setAttribute("aria-invalid", "true");
    document.getElementById(input.id + "-err").textContent = d.message;
  }
  const first = scope.querySelector("[aria-invalid]");
  if (first) first.focus();
}

// summaryHint is what an app adds after an error's message (the dashboard: a
// link to the plan page for an error a plan change lifts).
let summaryHint = () => null;

// errorHint sets it, once, when the app starts.
export function errorHint(fn) {
  summaryHint = fn;
}

// busy disables a button while its call runs, so a double press does
// not send twice, and reports the error beside it.
export async function busy(button, scope, fn) {
  button.disabled = true;
  showError(scope, null);
  try {
    return await fn();
  } catch (e) {
    showError(scope, e);
    return undefined;
  } finally {
    button.disabled = false;
  }
}

// when is a moment in the reader's time zone, with the zone named: a
// lender's team may sit in Lagos, London or Nairobi.
export function when(iso) {
  return iso ? new Date(iso).toLocaleString("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit",
    minute: "2-digit", timeZoneName: "short" }) : "never";
}

// choice is a <select> of options ([value, label] pairs or plain
// values) with value selected.
export function choice(options, value, attrs = {}) {
  return h("select", attrs, options.map((o) => {
    const [v, label] = Array.isArray(o) ? o : [o, o];
    return h("option", { value: v, selected: v === value }, label);
  }));
}

// heading is a page's h1, focusable so that navigation can move focus to
// it and a screen reader announces the new page.
export function heading(text) {
  return h("h1", { tabindex: "-1" }, text);
}

// table is responsive: below 640 px each row stacks as a card, each cell
// labelled with its column.
export function table(caption, cols, rows) {
  return h("table", {}, h("caption", { class: "visually-hidden" }, caption),
    h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows.map((r) => h("tr", r.attrs || {}, r.cells.map((c, i) => h("td", { "data-label": cols[i] }, c))))));
}
