// The frame every screen is drawn in: <main>, the sync line in the header,
// and going from one screen to another. Screens are registered by name
// (app.js), so this module imports none of them.
import { t } from "./strings.js";
import { h, nodes } from "./dom.js";
import * as store from "./store.js";
import * as queue from "./queue.js";

const main = document.getElementById("main");
const screens = {};
let current = { screen: "list", id: null }, leave = null;

// register adds screens: name -> (taskId) => what to show.
export function register(more) { Object.assign(screens, more); }

// shown is the screen on show and its task.
export const shown = () => current;

// onLeave runs fn once when the screen on show is left (a GPS watch to
// stop, a timer to clear).
export function onLeave(fn) { leave = fn; }

// go shows a screen, of the task id; without a session, sign-in.
export function go(screen, id = current.id) {
  leave?.();
  leave = null;
  current = { screen, id };
  const s = store.session();
  main.replaceChildren(...nodes(s ? (screens[screen] || screens.list)(id) : screens.signIn()));
  // A new screen starts at its top, below the sticky header. Focusing
  // <main> (for screen readers and the keyboard) must not scroll: the
  // browser would bring <main>'s top to the top of the window, under the
  // header, hiding the first lines of the list.
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
  renderSync();
}

// The header's height, for CSS (scroll-padding-top): a control reached by
// Tab is scrolled into view below the header, not under it. The height
// changes with the sync bar and the text size the phone is set to.
const header = document.querySelector("header");
const headerHeight = () => document.documentElement.style.setProperty("--header-h", header.offsetHeight + "px");
new ResizeObserver(headerHeight).observe(header);
headerHeight();

export function renderSync() {
  const el = document.getElementById("sync");
  const s = queue.state;
  el.className = s.waiting ? "waiting" : "";
  let text = t("syncedAll");
  if (s.sending) text = t("syncing");
  else if (s.waiting && s.nextAt) text = t("retryLater", s.waiting);
  else if (s.waiting) text = t("waiting", s.waiting);
  // A live region: only a real change is announced to screen readers.
  if (el.dataset.text === text) return;
  el.dataset.text = text;
  el.replaceChildren(...nodes([h("span", { id: "sync-text" }, text),
    s.waiting > 0 && !s.sending && h("button", { type: "button", onclick: () => queue.sync() }, t("syncNow"))]));
}
