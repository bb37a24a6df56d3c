// h builds elements without innerHTML, so a customer's name or an
// endpoint's response excerpt can never become markup. The agent app has
// its own copy on purpose: its service worker keeps /agent/ offline, and
// a module shared from outside that scope would not be.
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
  // An error only a plan change can lift says where to make it.
  if (planCodes.includes(err.code)) summary.append(" ", h("a", { href: "#/plan" }, "Change the plan"));
  for (const d of err.details || []) {
    const input = scope.querySelector(`[data-field="${CSS.escape(d.field)}"]`);
    if (!input) continue;
    input.setAttribute("aria-invalid", "true");
    document.getElementById(input.id + "-err").textContent = d.message;
  }
  const first = scope.querySelector("[aria-invalid]");
  if (first) first.focus();
}

// planCodes are the errors a plan change lifts.
const planCodes = ["PLAN_UPGRADE_REQUIRED", "PLAN_LIMIT_EXCEEDED", "QUOTA_EXCEEDED"];

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

export function money(cents) {
  return (cents / 100).toLocaleString("en-US", { style: "currency", currency: "USD" });
}

// table is responsive: below 640 px each row stacks as a card, each cell
// labelled with its column.
export function table(caption, cols, rows) {
  return h("table", {}, h("caption", { class: "visually-hidden" }, caption),
    h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows.map((r) => h("tr", r.attrs || {}, r.cells.map((c, i) => h("td", { "data-label": cols[i] }, c))))));
}

// copyable is a read-only text (a new key, a secret, an invitation link)
// with a Copy button: the clipboard, or where the browser refuses it the
// old copy command on the selected text, or at least the text selected
// for Ctrl+C. The status says which happened.
export function copyable(id, value, { button, describedBy, extra } = {}) {
  const input = h("input", { type: "text", readonly: true, id, value, "aria-describedby": describedBy });
  const status = h("span", { role: "status", class: "muted", id: id + "-status" });
  const copy = h("button", { type: "button", id: button, onclick: async () => {
    try {
      await navigator.clipboard.writeText(value);
      status.textContent = "Copied";
    } catch {
      input.focus();
      input.select();
      status.textContent = document.execCommand("copy") ? "Copied" : "Selected: press Ctrl+C (⌘C on a Mac) to copy";
    }
  } }, "Copy");
  return { input, nodes: [h("div", { class: "row" }, input, copy, extra), status] };
}
