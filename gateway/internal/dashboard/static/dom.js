// The dashboard's DOM helpers: the shared ones (/shared/dom.js, also the
// operations console's) and the dashboard's own.
import { h, errorHint } from "/shared/dom.js";

export { h, nodes, field, showError, busy, when, table, choice, heading } from "/shared/dom.js";

// An error only a plan change can lift says where to make it.
const planCodes = ["PLAN_UPGRADE_REQUIRED", "PLAN_LIMIT_EXCEEDED", "QUOTA_EXCEEDED"];
errorHint((err) => (planCodes.includes(err.code) ? h("a", { href: "#/plan" }, "Change the plan") : null));

export function money(cents) {
  return (cents / 100).toLocaleString("en-US", { style: "currency", currency: "USD" });
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
