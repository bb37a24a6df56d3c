// The field agent app: one screen per step, rendered into <main>. Reads
// come from /agent/v1 directly (cached for offline use); every change is
// queued (queue.js) and shown as done on the phone at once.
import { t } from "./strings.js";
import { h, field, nodes } from "./dom.js";
import { call } from "./api.js";
import * as store from "./store.js";
import * as queue from "./queue.js";

const TAGS = ["building_front", "street_view", "landmark", "gate", "house_number", "resident", "other"];
const REASONS = ["ADDRESS_NOT_FOUND", "WRONG_ADDRESS", "INVALID_ADDRESS", "CUSTOMER_NOT_KNOWN_AT_ADDRESS", "CUSTOMER_MOVED", "UNSAFE_AREA", "OTHER"];
const STEPS = ["checkin", "photos", "interview", "outcome", "review"];
const GOOD_ACCURACY = 50, MAX_WAIT = 30;
const main = document.getElementById("main");
const previews = {}; // photo previews of this page's life: taskId -> [url]
let current = { screen: "list", id: null }, tasks = [], listNote = "", stopGeo = null;

const token = () => store.session()?.token;
const task = (id) => tasks.find((x) => x.id === id) || store.cachedTasks().tasks.find((x) => x.id === id);
const addressLine = (a) => [[a.streetNumber, a.streetName].filter(Boolean).join(" "), a.city, a.state].filter(Boolean).join(", ");
const when = (iso) => new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });

function go(screen, id = current.id) {
  stopGeo?.();
  stopGeo = null;
  current = { screen, id };
  const s = store.session();
  main.replaceChildren(...nodes(s ? (screens[screen] || screens.list)(id) : screens.signIn()));
  main.focus();
  renderSync();
}

function renderSync() {
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

// position asks the phone where it is now; null when it cannot say.
function position() {
  return new Promise((resolve) => {
    if (!navigator.geolocation) return resolve(null);
    navigator.geolocation.getCurrentPosition(
      (p) => resolve({ latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy }),
      () => resolve(null), { enableHighAccuracy: true, maximumAge: 15000, timeout: 15000 });
  });
}

function stepHeader(id, step) {
  const x = task(id);
  return [h("p", { class: "steps" }, t("step", STEPS.indexOf(step) + 1, STEPS.length)),
    h("p", { class: "muted" }, x ? `${x.customerName} · ${addressLine(x)}` : "")];
}

function nav(back, next, label = t("next"), disabled = false) {
  return h("div", { class: "row" },
    h("button", { type: "button", class: "secondary", onclick: back }, t("back")),
    next && h("button", { type: "button", id: "next", onclick: next, disabled }, label));
}

const screens = {
  signIn() {
    const phone = h("input", { type: "tel", autocomplete: "tel", inputmode: "tel", required: true });
    const code = h("input", { inputmode: "numeric", autocomplete: "one-time-code", pattern: "[0-9]{6}", maxlength: "6", required: true });
    const msg = h("p", { class: "error", role: "alert" });
    const form = h("form", {
      onsubmit: async (e) => {
        e.preventDefault();
        msg.textContent = "";
        try {
          const d = await call("POST", "/session", { body: { phone: phone.value.replace(/\s/g, ""), code: code.value.trim() } });
          store.setSession({ token: d.token, agent: d.agent, expiresAt: d.expiresAt });
          await loadTasks();
          queue.sync();
        } catch (err) {
          msg.textContent = err.status === 401 || err.status === 400 ? t("signInFailed") : t("offlineSignIn");
        }
      },
    }, h("h2", {}, t("signInTitle")), field("phone", t("phone"), phone, t("phoneHint")),
    field("code", t("code"), code, t("codeHint")), msg, h("button", { type: "submit", id: "sign-in" }, t("signIn")));
    return form;
  },

  list() {
    const s = store.session(), vs = store.visits();
    const notices = store.notices();
    const sorted = [...tasks].sort((a, b) => (a.dueAt ? 0 : 1) - (b.dueAt ? 0 : 1) || (a.dueAt || "").localeCompare(b.dueAt || ""));
    return [
      h("p", { class: "muted" }, t("hello", s.agent?.name || "")),
      notices.length ? h("div", { class: "card", role: "alert" }, notices.map((n) => h("p", { class: "error" }, n)),
        h("button", { type: "button", class: "secondary", onclick: () => { store.clearNotices(); go("list"); } }, "OK")) : null,
      h("h2", {}, t("today")),
      listNote && h("p", { class: "muted" }, listNote),
      sorted.length ? sorted.map((x) => {
        const v = vs[x.id];
        return h("section", { class: "card", "aria-label": x.customerName },
          h("strong", {}, x.customerName), h("div", {}, addressLine(x)),
          x.dueAt && h("div", { class: "due" }, t("revisitDue", when(x.dueAt))),
          x.attempts?.length > 0 && h("div", { class: "muted" }, t("attempts", x.attempts.length)),
          v?.done ? h("div", { class: "done" }, t("completedLocal", t("short_" + v.done))) :
            (v?.checkIn || x.status === "IN_PROGRESS") && h("div", { class: "muted" }, t("inProgress")),
          !v?.done && h("button", { type: "button", onclick: () => go("task", x.id) }, t("open")));
      }) : h("p", {}, t("noTasks")),
      h("button", { type: "button", class: "secondary", onclick: async () => { await loadTasks(); } }, t("refresh")),
      h("button", { type: "button", class: "secondary", onclick: signOut }, t("signOut")),
    ];
  },

  task(id) {
    const x = task(id);
    if (!x) return screens.list();
    const v = store.visit(id);
    const started = v.checkIn || x.status === "IN_PROGRESS";
    return [
      h("h2", {}, x.customerName),
      h("p", {}, addressLine(x)),
      h("dl", {},
        h("dt", {}, t("landmark")), h("dd", {}, x.landmark || t("none")),
        h("dt", {}, t("clientNotes")), h("dd", {}, x.notes || t("none")),
        x.attempts?.length ? [h("dt", {}, t("attempts", x.attempts.length)), h("dd", {}, x.attempts.map((a) => a.notes || a.reason).filter(Boolean).join("; "))] : null),
      x.customerPhone && h("a", { class: "btn secondary", href: "tel:" + x.customerPhone }, t("call", x.customerPhone)),
      x.mapUrl?.startsWith("geo:") && h("a", { class: "btn secondary", href: x.mapUrl }, t("openMap")),
      h("button", { type: "button", id: "start", onclick: () => go(started ? "photos" : "checkin", id) }, started ? t("continueVisit") : t("startVisit")),
      h("button", { type: "button", class: "secondary", onclick: () => go("list") }, t("back")),
    ];
  },

  checkin(id) {
    const status = h("p", { role: "status", id: "accuracy" }, t("locating"));
    const btn = h("button", { type: "button", id: "check-in", disabled: true }, t("checkIn"));
    let best = null;
    const started = Date.now();
    const update = () => {
      const waited = (Date.now() - started) / 1000;
      if (!best) { btn.disabled = true; return; }
      const acc = Math.round(best.accuracy);
      const good = best.accuracy <= GOOD_ACCURACY;
      status.textContent = good ? t("accuracyGood", acc) : waited >= MAX_WAIT ? t("accuracyPoor", acc) : t("accuracy", acc);
      btn.disabled = !good && waited < MAX_WAIT;
      btn.textContent = good ? t("checkIn") : t("checkInAnyway");
    };
    if (navigator.geolocation) {
      const w = navigator.geolocation.watchPosition((p) => {
        if (!best || p.coords.accuracy <= best.accuracy) best = { latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy };
        update();
      }, () => { if (!best) status.textContent = t("noGeo"); }, { enableHighAccuracy: true, maximumAge: 0, timeout: MAX_WAIT * 1000 });
      const tick = setInterval(update, 1000);
      stopGeo = () => { navigator.geolocation.clearWatch(w); clearInterval(tick); };
    } else status.textContent = t("noGeo");
    btn.addEventListener("click", async () => {
      const pos = best;
      await queue.enqueue({ taskId: id, kind: "check-in", body: pos });
      const v = store.visit(id);
      v.checkIn = { ...pos, at: new Date().toISOString() };
      store.saveVisit(id, v);
      queue.sync();
      go("photos", id);
    });
    return [...stepHeader(id, "checkin"), h("h2", {}, t("checkInTitle")), h("p", {}, t("checkInHelp")), status, btn,
      nav(() => go("task", id))];
  },

  photos(id) {
    const v = store.visit(id);
    const next = TAGS[Math.min(v.photos.length, 1)];
    const tag = h("select", {}, TAGS.map((x) => h("option", { value: x }, t("tag_" + x))));
    tag.value = next;
    const file = h("input", { type: "file", id: "photo", accept: "image/jpeg,image/png", capture: "environment", class: "visually-hidden" });
    file.addEventListener("change", async () => {
      for (const f of file.files) {
        // The phone's own position and time at capture: Android strips
        // GPS from files handed to a browser.
        const pos = await position() || store.visit(id).checkIn;
        const fields = { tag: tag.value, capturedAt: new Date().toISOString() };
        if (pos) Object.assign(fields, { latitude: String(pos.latitude), longitude: String(pos.longitude), accuracy: String(pos.accuracy) });
        await queue.enqueue({ taskId: id, kind: "photos", file: f, fileName: f.name, fields });
        const cur = store.visit(id);
        cur.photos.push({ tag: fields.tag, capturedAt: fields.capturedAt });
        store.saveVisit(id, cur);
        (previews[id] ||= []).push({ url: URL.createObjectURL(f), tag: fields.tag });
      }
      queue.sync();
      go("photos", id);
    });
    const shown = previews[id] || [];
    return [...stepHeader(id, "photos"), h("h2", {}, t("photosTitle")), h("p", {}, t("photosHelp")),
      field("tag", t("photoTag"), tag),
      // The label is the big button; the input stays in the page (hidden
      // visually only) so it keeps the keyboard and screen readers.
      h("label", { for: "photo", class: "btn" }, t("takePhoto")), file,
      h("p", { role: "status", id: "photo-count" }, t("photoCount", v.photos.length)),
      h("div", { class: "photos" }, shown.map((p) => h("figure", {}, h("img", { src: p.url, alt: t("tag_" + p.tag) }), h("figcaption", {}, t("tag_" + p.tag))))),
      nav(() => go("task", id), () => go("interview", id))];
  },

  interview(id) {
    const v = store.visit(id), i = v.interview;
    const input = (k, attrs = {}) => h("input", { value: i[k] ?? "", ...attrs, oninput: (e) => save(k, e.target.type === "checkbox" ? e.target.checked : e.target.value) });
    const save = (k, val) => { const cur = store.visit(id); cur.interview[k] = val; store.saveVisit(id, cur); };
    const check = (k, label) => h("label", { class: "check" }, input(k, { type: "checkbox", checked: !!i[k], id: k, onchange: (e) => save(k, e.target.checked) }), label);
    return [...stepHeader(id, "interview"), h("h2", {}, t("interviewTitle")),
      field("resident-name", t("residentName"), input("name", { autocomplete: "off" })),
      field("relationship", t("relationship"), input("relationship")),
      field("years", t("years"), input("years", { type: "number", min: "0", inputmode: "numeric" })),
      field("building-type", t("buildingType"), input("buildingType")),
      field("colour", t("colour"), input("colour")),
      check("gate", t("gate")), check("neighbour", t("neighbourConfirmed")),
      field("neighbour-notes", t("neighbourNotes"), input("neighbourNotes")),
      nav(() => go("photos", id), () => go("outcome", id))];
  },

  outcome(id) {
    const v = store.visit(id), o = v.outcome, x = task(id);
    const save = (k, val) => { const cur = store.visit(id); cur.outcome[k] = val; store.saveVisit(id, cur); };
    const radios = ["VERIFIED", "REJECTED", "NO_ACCESS"].map((k) => h("label", { class: "check" },
      h("input", { type: "radio", name: "outcome", value: k, id: "outcome-" + k, checked: o.outcome === k, onchange: () => { save("outcome", k); go("outcome", id); } }), t(k)));
    const reason = h("select", { onchange: (e) => save("reason", e.target.value) }, h("option", { value: "" }, t("none")),
      REASONS.map((r) => h("option", { value: r }, t("reason_" + r))));
    reason.value = o.reason || "";
    if (o.outcome === "VERIFIED" && o.verifiedAddress === undefined && x) save("verifiedAddress", addressLine(x));
    const addr = h("input", { value: store.visit(id).outcome.verifiedAddress || "", oninput: (e) => save("verifiedAddress", e.target.value) });
    const notes = h("textarea", { oninput: (e) => save("notes", e.target.value) });
    notes.value = o.notes || "";
    return [...stepHeader(id, "outcome"), h("h2", {}, t("outcomeTitle")),
      h("fieldset", {}, h("legend", {}, t("outcome")), radios),
      o.outcome === "REJECTED" && field("reason", t("reason"), reason),
      o.outcome === "VERIFIED" && field("verified-address", t("verifiedAddress"), addr),
      field("notes", t("notes"), notes),
      nav(() => go("interview", id), () => go("review", id), t("next"), !o.outcome)];
  },

  review(id) {
    const v = store.visit(id), o = v.outcome, i = v.interview;
    const problems = [];
    if (o.outcome === "VERIFIED" && v.photos.length < 2) problems.push(t("needTwoPhotos"));
    if (o.outcome === "VERIFIED" && !o.verifiedAddress?.trim()) problems.push(t("needAddress"));
    if (o.outcome === "REJECTED" && !o.reason) problems.push(t("needReason"));
    if (o.outcome === "REJECTED" && o.reason === "OTHER" && !o.notes?.trim()) problems.push(t("needNotes"));
    const row = (k, val) => [h("dt", {}, k), h("dd", {}, val || t("none"))];
    return [...stepHeader(id, "review"), h("h2", {}, t("reviewTitle")),
      h("dl", {},
        row(t("checkInTitle"), v.checkIn && t("checkedIn", Math.round(v.checkIn.accuracy))),
        row(t("photosTitle"), v.photos.map((p) => t("tag_" + p.tag)).join(", ")),
        row(t("residentName"), [i.name, i.relationship].filter(Boolean).join(", ")),
        row(t("outcome"), o.outcome && t(o.outcome)),
        o.reason && o.outcome === "REJECTED" ? row(t("reason"), t("reason_" + o.reason)) : null,
        o.outcome === "VERIFIED" ? row(t("verifiedAddress"), o.verifiedAddress) : null,
        row(t("notes"), o.notes)),
      problems.map((p) => h("p", { class: "error", role: "alert" }, p)),
      nav(() => go("outcome", id), () => submit(id), t("submit"), problems.length > 0)];
  },
};

async function submit(id) {
  const v = store.visit(id), o = v.outcome, i = v.interview;
  const pos = await position() || v.checkIn;
  if (!pos) return alert(t("noGeo"));
  const body = { outcome: o.outcome, latitude: pos.latitude, longitude: pos.longitude, accuracy: pos.accuracy };
  if (o.notes?.trim()) body.notes = o.notes.trim();
  if (o.outcome === "VERIFIED") body.verifiedAddress = o.verifiedAddress.trim();
  if (o.outcome === "REJECTED") body.reason = o.reason;
  if (o.outcome !== "NO_ACCESS") {
    const resident = compact({ name: i.name, relationship: i.relationship, yearsAtAddress: i.years ? parseInt(i.years, 10) : undefined });
    const building = compact({ type: i.buildingType, colour: i.colour, gatePresent: i.gate || undefined });
    if (resident) body.resident = resident;
    if (building) body.building = building;
    if (i.neighbour || i.neighbourNotes) body.neighbour = compact({ confirmed: !!i.neighbour, notes: i.neighbourNotes });
  }
  await queue.enqueue({ taskId: id, kind: "complete", body });
  v.done = o.outcome;
  store.saveVisit(id, v);
  listNote = t("submitted");
  queue.sync();
  go("list", null);
}

function compact(o) {
  const out = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== "" && !Number.isNaN(v)) out[k] = typeof v === "string" ? v.trim() : v;
  return Object.keys(out).length ? out : null;
}

async function loadTasks() {
  try {
    const d = await call("GET", "/tasks", { token: token() });
    tasks = d.tasks;
    store.setCachedTasks(tasks);
    listNote = "";
  } catch (err) {
    if (err.status === 401) return expired();
    const c = store.cachedTasks();
    tasks = c.tasks;
    listNote = c.at ? t("fromCache", when(c.at)) : t("offline");
  }
  if (current.screen === "list" || !store.session()) go("list", null);
}

function expired() {
  store.setSession(null);
  store.addNotice(t("sessionEnded"));
  go("list", null);
}

async function signOut() {
  // Keep the queue: it is sent after the next sign-in.
  call("DELETE", "/session", { token: token() }).catch(() => {});
  store.setSession(null);
  go("list", null);
}

queue.configure({
  token,
  change: renderSync,
  unauthorised: expired,
  delivered(item) {
    if (item.kind === "complete") {
      store.saveVisit(item.taskId, null);
      delete previews[item.taskId];
      loadTasks();
    }
  },
  rejected(item, err) {
    store.addNotice(t("rejectedBy", err.message || err.code));
    if (err.status === 404) {
      store.saveVisit(item.taskId, null); // no longer this agent's task
    } else if (item.kind === "complete") {
      const v = store.visit(item.taskId);
      delete v.done; // let the agent put it right and submit again
      store.saveVisit(item.taskId, v);
    }
    loadTasks(); // show the platform's view of the list again
  },
});

// Ask the browser not to evict the outbox when the phone is short of space.
navigator.storage?.persist?.().catch(() => {});
if ("serviceWorker" in navigator) navigator.serviceWorker.register("sw.js").catch(() => {});
document.title = document.getElementById("title").textContent = t("appTitle");
tasks = store.cachedTasks().tasks;
go("list", null);
if (store.session()) { loadTasks(); queue.sync(); }
