// The dashboard shell: session, navigation, the test/live switch, and the
// log-in and sign-up screens. Each page is its own module, loaded when
// first opened, so the first load carries only the shell and one page.
import { dash, session } from "./api.js";
import { h, field, busy, nodes } from "./dom.js";
import { can, roleName } from "./roles.js";

// when: the pages a member's role (and the plan) can use at all; a page a
// role may read but not change hides its buttons itself.
const pages = [
  { id: "overview", label: "Overview", load: () => import("./overview.js") },
  { id: "keys", label: "API keys", load: () => import("./keys.js"), when: can.keys },
  { id: "plan", label: "Plan and usage", load: () => import("./plan.js") },
  { id: "customers", label: "Customers", load: () => import("./customers.js") },
  { id: "new-customer", label: "Create a customer", load: () => import("./create.js"), when: can.write },
  { id: "import", label: "Bulk import", load: () => import("./importer.js"), when: can.write },
  { id: "webhooks", label: "Webhooks", load: () => import("./webhooks.js") },
  { id: "branding", label: "White label", load: () => import("./branding.js"),
    when: (me) => me.organization.planDetails.whiteLabel && can.write(me) },
  { id: "team", label: "Team", load: () => import("./team.js") },
  { id: "audit", label: "Audit log", load: () => import("./audit.js"), when: can.audit },
  { id: "security", label: "Security", load: () => import("./security.js") },
];

// home is where a member lands: the keys for those who manage them, the
// overview for a viewer.
const home = (me) => "#/" + (can.keys(me) ? "keys" : "overview");

// invite is the token of an invitation link (#invite=<token>): it stays
// in the fragment, which the browser never sends, until it is used.
const inviteToken = () => (location.hash.match(/^#invite=([^&/]+)/) || [])[1];

const main = document.getElementById("main");
// The skip link moves focus itself: as a plain #main link it would
// change the address the pages are routed by.
document.querySelector(".skip").addEventListener("click", (ev) => {
  ev.preventDefault();
  main.focus();
});
let me = null;

function signedIn(data) {
  me = data;
  session.csrf = data.csrfToken;
}

// onEnd: the session expired or was ended elsewhere while the page was
// open; the person logs in again.
session.onEnd = () => {
  if (!me) return;
  me = null;
  session.csrf = "";
  location.hash = "#/login";
};

async function start() {
  // The page the address names is fetched while /me is asked, not after:
  // on a slow connection that is a round trip saved.
  const [wanted] = location.hash.replace(/^#\/?/, "").split("/");
  pages.find((p) => p.id === wanted)?.load().catch(() => {});
  try {
    signedIn(await dash("GET", "/me"));
  } catch {
    me = null;
  }
  addEventListener("hashchange", () => route(true));
  route(false); // a fresh load starts at the top, where "Skip to content" is
}

// routing counts route calls: a page whose data arrives after the person
// has asked for another must not replace it (switch to Sandbox, then
// open Plan before the customers list has loaded).
let routing = 0;

// route shows the page the address names; focus moves to its heading
// when the person navigated, so a screen reader announces the new page.
async function route(navigated) {
  const turn = ++routing;
  const token = inviteToken();
  if (token) {
    top(null);
    const content = await (await import("./invite.js")).view({ token: decodeURIComponent(token), accepted });
    if (turn === routing) show(content, navigated);
    return;
  }
  const [name, ...params] = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  if (!me) {
    top(null);
    return show(name === "signup" ? signUp() : logIn(), navigated);
  }
  const allowed = pages.filter((p) => !p.when || p.when(me));
  const page = allowed.find((p) => p.id === name);
  if (!page) {
    location.replace(home(me));
    return;
  }
  top(page.id);
  let content;
  try {
    const mod = await page.load();
    content = await mod.view({ me, params, refresh: () => route(false), reloadMe });
  } catch (e) {
    content = [h("h1", { tabindex: "-1" }, page.label), h("p", { class: "error", role: "alert" }, e.message)];
  }
  if (turn === routing) show(content, navigated);
}

// accepted: the invitation made the person a member and signed them in
// (the answer of log-in); the token leaves the address bar.
async function accepted(data) {
  signedIn(data);
  signedIn(await dash("GET", "/me")); // with the plan catalogue and the role
  history.replaceState(null, "", location.pathname + home(me));
  route(true);
}

async function reloadMe() {
  signedIn(await dash("GET", "/me"));
  top(location.hash.replace(/^#\/?/, "").split("/")[0]);
}

function show(content, navigated) {
  main.replaceChildren(...nodes(content));
  if (navigated) (main.querySelector("h1") || main).focus();
}

// top draws the header: the pages, the environment switch (always
// visible; the sandbox banner says which data the page shows) and the
// account with its log-out button.
function top(active) {
  const nav = document.getElementById("nav");
  const env = document.getElementById("env");
  const account = document.getElementById("account");
  document.body.classList.toggle("live", !!me && session.env === "live");
  document.getElementById("sandbox").hidden = !me || session.env !== "test";
  if (!me) {
    nav.replaceChildren();
    env.replaceChildren();
    account.replaceChildren();
    return;
  }
  nav.replaceChildren(...pages.filter((p) => !p.when || p.when(me)).map((p) =>
    h("a", { href: "#/" + p.id, "aria-current": p.id === active ? "page" : undefined }, p.label)));
  const choice = (value, label) => h("label", { class: "env-choice" },
    h("input", { type: "radio", name: "env", value, checked: session.env === value, onchange: () => switchEnv(value) }), label);
  env.replaceChildren(h("fieldset", { class: "env-switch" }, h("legend", {}, "Environment"),
    choice("test", "Sandbox"), choice("live", "Live")));
  account.replaceChildren(h("span", { class: "muted", id: "whoami" }, me.organization.name, " · ", me.organization.planDetails.name, " plan · ", roleName(me)),
    h("button", { type: "button", class: "link", id: "logout", onclick: logOut }, "Log out"));
}

function switchEnv(value) {
  session.env = value;
  localStorage.setItem("kyc-env", value);
  route(false);
}

async function logOut(ev) {
  await busy(ev.target, document.getElementById("account"), () => dash("POST", "/logout"));
  me = null;
  session.csrf = "";
  location.hash = "#/login";
  route(true);
}

// logIn asks for email and password, and for the authenticator app's
// code once the platform says the account has two-step sign-in on.
function logIn() {
  const email = h("input", { type: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", autocomplete: "current-password", required: true });
  const otp = h("input", { type: "text", inputmode: "numeric", autocomplete: "one-time-code", pattern: "[0-9]{6}", maxlength: "6" });
  const otpField = field("otp", "Code from your authenticator app", otp, { hint: "6 digits; a new one every 30 seconds." });
  otpField.hidden = true;
  const submit = h("button", { type: "submit", id: "log-in" }, "Log in");
  const form = h("form", { class: "card narrow", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      try {
        const body = { email: email.value, password: password.value };
        if (!otpField.hidden) body.otp = otp.value.trim();
        signedIn(await dash("POST", "/login", body));
      } catch (e) {
        if (e.code === "OTP_REQUIRED") {
          otpField.hidden = false;
          otp.required = true;
          setTimeout(() => otp.focus());
        }
        throw e;
      }
      signedIn(await dash("GET", "/me")); // with the plan catalogue
      location.hash = home(me);
    });
  } }, field("email", "Email", email), field("password", "Password", password), otpField, submit);
  return [h("h1", { tabindex: "-1" }, "Log in"), form,
    h("p", {}, "No account yet? ", h("a", { href: "#/signup" }, "Sign up"), " — the Developer plan is free and sandbox only.")];
}

function signUp() {
  const org = h("input", { type: "text", autocomplete: "organization", required: true });
  const email = h("input", { type: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", autocomplete: "new-password", required: true });
  const submit = h("button", { type: "submit", id: "sign-up" }, "Create account");
  const form = h("form", { class: "card narrow", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      signedIn(await dash("POST", "/signup", { organizationName: org.value, email: email.value, password: password.value }));
      signedIn(await dash("GET", "/me")); // with the plan catalogue
      location.hash = "#/keys";
    });
  } }, field("org", "Organization name", org, { name: "organizationName" }), field("email", "Work email", email),
  field("password", "Password", password, { hint: "At least 10 characters, not a common password." }), submit);
  return [h("h1", { tabindex: "-1" }, "Create your account"), form,
    h("p", {}, "Already have an account? ", h("a", { href: "#/login" }, "Log in"))];
}

start();
