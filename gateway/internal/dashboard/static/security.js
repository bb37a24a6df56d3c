// Security: two-step sign-in (TOTP) for the person signed in. Turning it
// on takes a code from the authenticator app, and so does turning it off.
import { dash } from "./api.js";
import { h, field, busy } from "./dom.js";

export async function view({ me, refresh, reloadMe }) {
  const head = h("h1", { tabindex: "-1" }, "Security");
  const done = async () => {
    await reloadMe();
    refresh();
  };
  if (me.user.totpEnabled) {
    return [head, h("p", { id: "totp-state" }, "Two-step sign-in is on: logging in asks for the code your authenticator app shows."),
      codeForm("disable", "Turn off two-step sign-in", "Turn off", done)];
  }
  const slot = h("div", {});
  const start = h("button", { type: "button", id: "totp-start" }, "Set up two-step sign-in");
  start.addEventListener("click", () => busy(start, slot, async () => {
    const e = await dash("POST", "/totp");
    start.hidden = true;
    slot.replaceChildren(enrolment(e), codeForm("confirm", "Confirm a code", "Turn on", done));
    slot.querySelector("input").focus();
  }));
  return [head, h("p", { id: "totp-state" }, "Two-step sign-in is off. With it on, logging in also asks for a code from an authenticator app on your phone."),
    start, slot];
}

// enrolment shows the new secret as a QR code and as text to type in.
function enrolment(e) {
  return h("section", { class: "card", "aria-labelledby": "totp-add" },
    h("h2", { id: "totp-add" }, "Add KYC Field to your authenticator app"),
    h("p", {}, "Scan this code with the app, or type the key in."),
    h("img", { src: "data:image/png;base64," + e.qrCodePng, alt: "QR code of the key below", width: "240", height: "240" }),
    h("label", { for: "totp-secret" }, "Key"),
    h("input", { type: "text", readonly: true, id: "totp-secret", value: e.secret }));
}

function codeForm(action, title, label, done) {
  const code = h("input", { type: "text", inputmode: "numeric", autocomplete: "one-time-code", pattern: "[0-9]{6}", maxlength: "6", required: true });
  const submit = h("button", { type: "submit", id: "totp-" + action }, label);
  const form = h("form", { class: "card narrow", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      await dash("POST", "/totp/" + action, { code: code.value.trim() });
      await done();
    });
  } }, h("h2", {}, title), field("totp-code", "Code from the app", code, { name: "code", hint: "6 digits; a new one every 30 seconds." }), submit);
  return form;
}
