// Sign-in: the agent's phone number and the one-time code operations gave.
import { t } from "./strings.js";
import { h, field } from "./dom.js";
import { call } from "./api.js";
import * as store from "./store.js";
import * as queue from "./queue.js";
import { loadTasks } from "./state.js";

export function signIn() {
  const phone = h("input", { type: "tel", autocomplete: "tel", inputmode: "tel", required: true });
  const code = h("input", { inputmode: "numeric", autocomplete: "one-time-code", pattern: "[0-9]{6}", maxlength: "6", required: true });
  const msg = h("p", { class: "error", role: "alert" });
  const form = h("form", {
    onsubmit: async (e) => {
      e.preventDefault();
      msg.textContent = "";
      try {
        // Sent as typed: the platform reads every usual form (0803 123 4567, +234...).
        const d = await call("POST", "/session", { body: { phone: phone.value.trim(), code: code.value.trim() } });
        store.setSession({ token: d.token, agent: d.agent, expiresAt: d.expiresAt });
        await loadTasks();
        queue.sync();
      } catch (err) {
        if (err.status === 429) msg.textContent = t("signInWait", Math.max(1, Math.ceil(err.retryAfter / 60)));
        else msg.textContent = err.status === 401 || err.status === 400 ? t("signInFailed") : t("offlineSignIn");
      }
    },
  }, h("h2", {}, t("signInTitle")), field("phone", t("phone"), phone, t("phoneHint")),
  field("code", t("code"), code, t("codeHint")), msg, h("button", { type: "submit", id: "sign-in" }, t("signIn")));
  return form;
}
