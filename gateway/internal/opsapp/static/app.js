// The operations console's shell: the staff session, sign-in (email,
// password and a TOTP code, always all three), enrolment from a one-time
// link, the navigation, and the pages, each shown only to the roles that
// may use it.
//
// PAGE CONTRACT. Every page is a module of its own (queue.js, coverage.js,
// agents.js, reviews.js, orgs.js, staff.js, audit.js) exporting
//
//   export const page = {
//     id: "queue",               // its address: #/queue (with params: #/queue?state=Kano)
//     title: "Queue",            // the navigation link and the window title
//     roles: ["dispatcher"],     // the staff roles that see it: admin, dispatcher, reviewer
//     async render(main, ctx) {}, // fills main
//   };
//
// render gets main, an emptied <main> element already on the screen, and
// fills it (it may be async; what it throws is shown on the page in
// words). It starts with an <h1> (dom.js heading(title)): navigation moves
// focus there. Every route gets a fresh <main>, so a slow render of a page
// the person has already left writes into an element no longer shown.
// ctx is:
//   ctx.api(method, path, body)  calls /ops/v1 + path with the session's
//                                cookie and CSRF token; resolves to the
//                                envelope's data, throws an api.js APIError
//                                {status, code, message, details}
//   ctx.me                       the signed-in member {id, email, name, role}
//   ctx.go(id, params)           opens another page; params (an object of
//                                strings) become that page's ctx.params, e.g.
//                                the coverage map filters the queue with
//                                ctx.go("queue", {state: "Kano"})
//   ctx.params                   this page's parameters from its address
//   ctx.alive()                  true while this page is still the one shown:
//                                a page that refreshes by itself (polling)
//                                stops when it turns false
// Pages build the DOM with dom.js (h, field, busy, table, ...), never
// innerHTML, label every control, and work by keyboard and at 360 px.
// The queue, coverage, agents and reviews modules here are placeholders
// that their own branches replace.
import { api, session } from "./api.js";
import { h, field, busy, nodes, heading } from "/shared/dom.js";
import { page as queue } from "./queue.js";
import { page as coverage } from "./coverage.js";
import { page as agents } from "./agents.js";
import { page as reviews } from "./reviews.js";
import { page as orgs } from "./orgs.js";
import { page as staff } from "./staff.js";
import { page as audit } from "./audit.js";

const pages = [queue, coverage, agents, reviews, orgs, staff, audit];

// The skip link moves focus itself: as a plain #main link it would change
// the address the pages are routed by.
document.querySelector(".skip").addEventListener("click", (ev) => {
  ev.preventDefault();
  document.getElementById("main").focus();
});

let me = null;
// enrolToken is the one-time link's token, read from the address once and
// then removed from it, so it is neither in the history nor in a bookmark.
let enrolToken = "";
let ended = false;

function signedIn(data) {
  me = data.staff;
  session.csrf = data.csrfToken;
  ended = false;
}

// onEnd: the session expired, was ended elsewhere, or the member was
// disabled while the page was open; the person signs in again.
session.onEnd = () => {
  if (!me) return;
  me = null;
  session.csrf = "";
  ended = true;
  location.hash = "#/signin";
};

function allowed() {
  return me ? pages.filter((p) => p.roles.includes(me.role)) : [];
}

// home opens the first page the member's role may use.
function home() {
  const target = "#/" + (allowed()[0]?.id || "signin");
  if (location.hash === target) route(true);
  else location.hash = target;
}

function parseHash() {
  const [path, query] = location.hash.replace(/^#\/?/, "").split("?");
  return { id: decodeURIComponent(path || ""), params: Object.fromEntries(new URLSearchParams(query || "")) };
}

function go(id, params) {
  const q = new URLSearchParams(Object.entries(params || {}).filter(([, v]) => v !== undefined && v !== null && v !== "")).toString();
  const target = "#/" + encodeURIComponent(id) + (q ? "?" + q : "");
  if (location.hash === target) route(true);
  else location.hash = target;
}

async function start() {
  const m = location.hash.match(/^#enrol=([^&]+)/);
  if (m) {
    enrolToken = decodeURIComponent(m[1]);
    history.replaceState(null, "", location.pathname + "#/enrol");
  }
  try {
    signedIn(await api("GET", "/session"));
  } catch {
    me = null;
  }
  addEventListener("hashchange", () => route(true));
  route(false); // a fresh load starts at the top, where "Skip to content" is
}

// routing counts route calls: a page whose data arrives after the person
// has opened another must not take the screen back.
let routing = 0;

// fresh puts a new, empty <main> on the screen and returns it.
function fresh() {
  const main = h("main", { id: "main", tabindex: "-1" });
  document.getElementById("main").replaceWith(main);
  return main;
}

async function route(navigated) {
  const turn = ++routing;
  const alive = () => turn === routing;
  const { id, params } = parseHash();
  if (id === "enrol" && enrolToken) {
    top(null);
    document.title = "Enrol · KYC Operations";
    const content = await enrolment();
    if (alive()) show(fresh(), content, navigated);
    return;
  }
  if (!me) {
    top(null);
    document.title = "Sign in · KYC Operations";
    return show(fresh(), signIn(), navigated);
  }
  const page = allowed().find((p) => p.id === id);
  if (!page) return home();
  top(page.id);
  document.title = page.title + " · KYC Operations";
  const main = fresh();
  try {
    await page.render(main, { api, me, go, params, alive });
  } catch (e) {
    if (alive()) main.replaceChildren(heading(page.title), h("p", { class: "error", role: "alert" }, e.message));
  }
  if (navigated && alive()) (main.querySelector("h1") || main).focus();
}

function show(main, content, navigated) {
  main.replaceChildren(...nodes(content));
  if (navigated) (main.querySelector("h1") || main).focus();
}

// top draws the header: the pages the member's role may use, and who is
// signed in with the sign-out button.
function top(active) {
  const nav = document.getElementById("nav");
  const account = document.getElementById("account");
  if (!me) {
    nav.replaceChildren();
    account.replaceChildren();
    return;
  }
  nav.replaceChildren(...allowed().map((p) =>
    h("a", { href: "#/" + p.id, "aria-current": p.id === active ? "page" : undefined }, p.title)));
  account.replaceChildren(h("span", { class: "muted", id: "whoami" }, me.name, " · ", me.role),
    h("button", { type: "button", class: "link", id: "sign-out", onclick: signOut }, "Sign out"));
}

async function signOut(ev) {
  await busy(ev.target, document.getElementById("account"), () => api("DELETE", "/session"));
  me = null;
  session.csrf = "";
  location.hash = "#/signin";
  route(true);
}

function codeInput() {
  return h("input", { type: "text", inputmode: "numeric", autocomplete: "one-time-code", pattern: "[0-9]{6}", maxlength: "6", required: true });
}

// signIn asks for all three at once: staff see every lender's customers,
// so a password alone never opens the console.
function signIn() {
  const email = h("input", { type: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", autocomplete: "current-password", required: true });
  const code = codeInput();
  const submit = h("button", { type: "submit", id: "sign-in" }, "Sign in");
  const form = h("form", { class: "card narrow", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      signedIn(await api("POST", "/session", { email: email.value, password: password.value, code: code.value.trim() }));
      home();
    });
  } }, field("email", "Email", email), field("password", "Password", password),
  field("code", "Code from your authenticator app", code, { hint: "6 digits; a new one every 30 seconds." }), submit);
  return [heading("Sign in to operations"),
    ended && h("p", { class: "notice card", role: "status" }, "Your session has ended; sign in again."),
    form,
    h("p", { class: "muted" }, "New here? Open the enrolment link an admin sent you.")];
}

// enrolment shows the new member the secret to add to an authenticator
// app (grouped in fours for typing, and as an otpauth: link a phone opens
// in the app), then asks for a password and the app's first code.
async function enrolment() {
  let e;
  try {
    e = await api("POST", "/enrolment/start", { token: enrolToken });
  } catch (err) {
    return [heading("Enrolment"), h("p", { class: "error", role: "alert", id: "enrol-error" }, err.message),
      h("p", {}, h("a", { href: "#/signin" }, "Sign in"), " if you have enrolled already.")];
  }
  const grouped = e.totpSecret.match(/.{1,4}/g).join(" ");
  const password = h("input", { type: "password", autocomplete: "new-password", required: true });
  const code = codeInput();
  const submit = h("button", { type: "submit", id: "enrol-finish" }, "Finish and sign in");
  const form = h("form", { class: "card narrow", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      signedIn(await api("POST", "/enrolment/finish", { token: enrolToken, password: password.value, code: code.value.trim() }));
      enrolToken = "";
      home();
    });
  } }, h("h2", {}, "2. Choose a password and confirm a code"),
  field("password", "Password", password, { hint: "At least 10 characters, not a common password." }),
  field("code", "Code from your authenticator app", code, { hint: "6 digits; a new one every 30 seconds." }), submit);
  return [heading("Welcome, " + e.name),
    h("p", {}, "You are enrolling as ", h("strong", {}, e.email), " with the ", h("strong", {}, e.role), " role."),
    h("section", { class: "card", "aria-labelledby": "totp-add" },
      h("h2", { id: "totp-add" }, "1. Add KYC Operations to your authenticator app"),
      h("p", {}, "In the app, add an account by key and type this key in (spaces do not matter):"),
      h("p", { class: "secret", id: "totp-secret" }, grouped),
      h("p", {}, "On this phone? ", h("a", { href: e.otpauthUri, id: "otpauth-link" }, "Open it in the authenticator app"), "."),
      h("details", {}, h("summary", {}, "The otpauth address"), h("code", { id: "otpauth-uri" }, e.otpauthUri))),
    form];
}

start();
