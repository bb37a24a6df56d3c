// Step 2, photos: each taken with the phone's position and time, queued
// with the original file, and previewed from this page's memory.
import { t } from "./strings.js";
import { h, field } from "./dom.js";
import * as store from "./store.js";
import * as queue from "./queue.js";
import { go } from "./shell.js";
import { previews, position } from "./state.js";
import { stepHeader, nav } from "./steps.js";

const TAGS = ["building_front", "street_view", "landmark", "gate", "house_number", "resident", "other"];

export function photos(id) {
  const v = store.visit(id);
  const next = TAGS[Math.min(v.photos.length, 1)];
  const tag = h("select", {}, TAGS.map((x) => h("option", { value: x }, t("tag_" + x))));
  tag.value = next;
  const file = h("input", { type: "file", id: "photo", accept: "image/jpeg,image/png", capture: "environment", class: "visually-hidden" });
  file.addEventListener("change", async () => {
    for (const f of file.files) await take(id, f, tag.value);
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
}

// take queues one photo f of the task with its tag.
async function take(id, f, tag) {
  // The phone's own position and time at capture: Android strips GPS
  // from files handed to a browser.
  const pos = await position() || store.visit(id).checkIn;
  const fields = { tag, capturedAt: new Date().toISOString() };
  if (pos) Object.assign(fields, { latitude: String(pos.latitude), longitude: String(pos.longitude), accuracy: String(pos.accuracy) });
  await queue.enqueue({ taskId: id, kind: "photos", file: f, fileName: f.name, fields });
  const cur = store.visit(id);
  cur.photos.push({ tag: fields.tag, capturedAt: fields.capturedAt });
  store.saveVisit(id, cur);
  (previews[id] ||= []).push({ url: URL.createObjectURL(f), tag: fields.tag });
}
