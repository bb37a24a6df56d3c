// The service worker keeps the app shell on the phone so the app opens
// with no network. It never touches /agent/v1: reads fall back to the
// app's own cache and changes wait in the IndexedDB outbox.
const VERSION = "__VERSION__"; // replaced by the gateway with a hash of the files
const CACHE = "kyc-agent-" + VERSION;
// Every file of the app but this one (agentapp_test.go checks the list).
const SHELL = ["./", "app.js", "shell.js", "state.js", "signin.js", "list.js", "task.js", "steps.js", "checkin.js", "photos.js",
  "interview.js", "outcome.js", "review.js", "trail.js", "api.js", "dom.js", "queue.js", "store.js", "strings.js", "app.css",
  "manifest.webmanifest", "icon.svg"];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith("kyc-agent-") && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== "GET" || url.origin !== location.origin || url.pathname.startsWith("/agent/v1/")) return;
  // Cache first: a new build arrives with a new sw.js (its VERSION
  // changes), which installs the new files and takes over.
  e.respondWith(caches.open(CACHE).then(async (c) =>
    (await c.match(e.request, { ignoreSearch: true })) ||
    (e.request.mode === "navigate" && (await c.match("./"))) ||
    fetch(e.request)));
});
