// API keys: list, create (the secret shown once, with a copy button),
// roll with a grace period, revoke after a confirmation.
import { dash, session } from "./api.js";
import { h, field, busy, when, table, copyable } from "./dom.js";

export async function view({ me }) {
  const { keys } = await dash("GET", "/keys");
  const out = h("div", { id: "secret-slot" });
  const list = h("div", {});
  const reload = async (ks) => list.replaceChildren(keyTable(ks || (await dash("GET", "/keys")).keys, out, reload));
  await reload(keys);
  return [h("h1", { tabindex: "-1" }, "API keys"), createForm(me, out, reload), out, h("h2", { id: "keys-title", tabindex: "-1" }, "Your keys"), list];
}

function createForm(me, out, reload) {
  const name = h("input", { type: "text", value: "backend", maxlength: "100" });
  const env = h("select", {}, h("option", { value: "test", selected: session.env === "test" }, "Sandbox (mk_test_)"),
    h("option", { value: "live", selected: session.env === "live" }, "Live (mk_live_)"));
  const read = h("input", { type: "checkbox", checked: true, id: "scope-read" });
  const write = h("input", { type: "checkbox", checked: true, id: "scope-write" });
  const submit = h("button", { type: "submit", id: "create-key" }, "Create key");
  const form = h("form", { class: "card", "aria-labelledby": "create-title", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      const scopes = [read.checked && "kyc:read", write.checked && "kyc:write"].filter(Boolean);
      const k = await dash("POST", "/keys", { name: name.value, environment: env.value, scopes });
      await reload(); // first, so nothing moves under the person once the key shows
      secret(out, k.key, `Key “${k.name}” created.`);
    });
  } },
  h("h2", { id: "create-title" }, "Create a key"),
  field("key-name", "Name", name, { name: "name", hint: "What the key is for, e.g. the service that uses it." }),
  field("key-env", "Environment", env, { name: "environment",
    hint: me.organization.planDetails.liveAccess ? "" : "Live keys need the Growth or Enterprise plan." }),
  h("fieldset", { "data-field": "scopes", id: "key-scopes", "aria-describedby": "key-scopes-err" }, h("legend", {}, "Scopes"),
    h("label", { class: "check" }, read, "kyc:read — read customers, statuses, reports"),
    h("label", { class: "check" }, write, "kyc:write — create and change customers"),
    h("div", { id: "key-scopes-err", class: "error", role: "alert" })),
  submit);
  return form;
}

// secret shows a new key once: it is never shown again by the platform.
function secret(out, key, title) {
  const { input, nodes } = copyable("new-key", key, { button: "copy-key", describedBy: "new-key-note" });
  out.replaceChildren(h("section", { class: "card notice", "aria-labelledby": "new-key-title" },
    h("h2", { id: "new-key-title" }, title),
    h("p", { id: "new-key-note" }, "Copy this key now and keep it somewhere safe: it will not be shown again."),
    h("label", { for: "new-key" }, "Secret key"), nodes));
  input.focus();
  input.select();
}

function keyTable(keys, out, reload) {
  if (!keys.length) return h("p", {}, "No keys yet.");
  return table("API keys", ["Name", "Prefix", "Scopes", "Environment", "Status", "Created", "Last used", "Actions"],
    keys.map((k) => ({
      attrs: { "data-key": k.id },
      cells: [k.name || "—", h("code", {}, k.displayPrefix + "…"), k.scopes.join(", "),
        k.environment === "live" ? "Live" : "Sandbox", status(k), when(k.createdAt), when(k.lastUsedAt), actions(k, out, reload)],
    })));
}

function status(k) {
  if (k.status === "expiring") return `Expiring ${when(k.expiresAt)}`;
  return { active: "Active", revoked: "Revoked", expired: "Expired" }[k.status] || k.status;
}

// actions: Roll and Revoke open an inline confirmation in the row, so
// nothing irreversible happens on one press and the keyboard stays there.
function actions(k, out, reload) {
  const cell = h("div", { class: "actions" });
  if (k.status !== "active" && k.status !== "expiring") return cell;
  // reset shows the two buttons again, focus on the one that was pressed
  // (a keyboard user's place is kept after Cancel).
  const reset = (focus) => {
    draw();
    if (typeof focus === "string") cell.querySelector(`[data-act="${focus}"]`).focus();
  };
  const draw = () => cell.replaceChildren(
    h("button", { type: "button", class: "secondary small", onclick: roll, "data-act": "roll", "aria-label": `Roll ${k.name || k.displayPrefix}` }, "Roll"),
    h("button", { type: "button", class: "danger small", onclick: revoke, "data-act": "revoke", "aria-label": `Revoke ${k.name || k.displayPrefix}` }, "Revoke"));
  const revoke = () => {
    const yes = h("button", { type: "button", class: "danger small", id: "confirm-revoke", onclick: () => busy(yes, cell, async () => {
      await dash("POST", `/keys/${k.id}/revoke`);
      await reload();
      document.getElementById("keys-title").focus();
    }) }, "Revoke key");
    cell.replaceChildren(h("p", {}, `Revoke ${k.displayPrefix}…? Calls with it are refused at once; this cannot be undone.`),
      yes, h("button", { type: "button", class: "secondary small", onclick: () => reset("revoke") }, "Cancel"));
    yes.focus();
  };
  const roll = () => {
    const grace = h("select", {}, [0, 1, 24, 72].map((n) => h("option", { value: String(n), selected: n === 24 },
      n === 0 ? "Stop the old key now" : `Old key works ${n} more hour${n > 1 ? "s" : ""}`)));
    const yes = h("button", { type: "button", class: "small", id: "confirm-roll", onclick: () => busy(yes, cell, async () => {
      const r = await dash("POST", `/keys/${k.id}/roll`, { gracePeriodHours: Number(grace.value) });
      await reload();
      secret(out, r.key.key, `Key “${k.name}” rolled. ` +
        (r.previous.status === "expiring" ? `The old key works until ${when(r.previous.expiresAt)}.` : "The old key has stopped."));
    }) }, "Roll key");
    cell.replaceChildren(field(`grace-${k.id}`, "Grace period", grace, { name: "gracePeriodHours" }), yes,
      h("button", { type: "button", class: "secondary small", onclick: () => reset("roll") }, "Cancel"));
    grace.focus();
  };
  draw();
  return cell;
}
