// Accepting an invitation: the link an admin copied (#invite=<token>)
// names the organization, the email and the role; the person chooses
// their name and password and is signed in, as after log-in. The token
// is read from the fragment and only ever sent in a request body.
import { dash } from "./api.js";
import { h, field, busy } from "./dom.js";

export async function view({ token, accepted }) {
  let inv;
  try {
    inv = await dash("POST", "/invitations/lookup", { token });
  } catch (e) {
    const gone = e.status === 404 || e.status === 410;
    return [h("h1", { tabindex: "-1" }, "Invitation"),
      h("p", { class: "error", role: "alert", id: "invite-error" },
        gone ? "This invitation link is unknown, has expired or has been used. Ask the person who invited you for a new one." : e.message),
      h("p", {}, h("a", { href: "#/login" }, "Log in"), " if you have accepted it already.")];
  }
  const name = h("input", { type: "text", autocomplete: "name", required: true, maxlength: "100" });
  const password = h("input", { type: "password", autocomplete: "new-password", required: true });
  const submit = h("button", { type: "submit", id: "accept-invite" }, "Join and sign in");
  const form = h("form", { class: "card narrow", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => accepted(await dash("POST", "/invitations/accept", { token, name: name.value, password: password.value })));
  } },
  h("p", {}, "You will sign in as ", h("strong", { id: "invite-email" }, inv.email), "."),
  // The email is the username: a password manager files the new password under it.
  h("input", { type: "email", autocomplete: "username", value: inv.email, hidden: true, readonly: true, "aria-hidden": "true", tabindex: "-1" }),
  field("invite-name", "Your name", name, { name: "name" }),
  field("invite-password", "Choose a password", password, { name: "password", hint: "At least 10 characters, not a common password." }),
  submit);
  return [h("h1", { tabindex: "-1" }, `Join ${inv.organizationName}`),
    h("p", { id: "invite-summary" }, "You have been invited to ", h("strong", {}, inv.organizationName), " with the ",
      h("strong", { id: "invite-role" }, inv.role), " role."),
    form];
}
