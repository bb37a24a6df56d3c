// The field agent app's start: one module per screen, drawn into <main>
// by shell.js. Reads come from /agent/v1 directly (cached for offline
// use); every change is queued (queue.js) and shown as done on the phone
// at once.
import { t } from "./strings.js";
import * as store from "./store.js";
import * as queue from "./queue.js";
import { go, register, renderSync } from "./shell.js";
import { previews, token, loadTasks, expired } from "./state.js";
import { signIn } from "./signin.js";
import { list } from "./list.js";
import { task } from "./task.js";
import { checkin } from "./checkin.js";
import { photos } from "./photos.js";
import { interview } from "./interview.js";
import { outcome } from "./outcome.js";
import { review } from "./review.js";

register({ signIn, list, task, checkin, photos, interview, outcome, review });

queue.configure({
  token,
  change: renderSync,
  unauthorised: expired,
  delivered(item) {
    if (item.kind === "complete") {
      store.saveVisit(item.taskId, null);
      store.markSent(item.taskId);
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
      store.dismiss(item.taskId); // not sent: the notice above says why
    }
    loadTasks(); // show the platform's view of the list again
  },
});

// Ask the browser not to evict the outbox when the phone is short of space.
navigator.storage?.persist?.().catch(() => {});
if ("serviceWorker" in navigator) navigator.serviceWorker.register("sw.js").catch(() => {});
document.title = document.getElementById("title").textContent = t("appTitle");
go("list", null);
if (store.session()) { loadTasks(); queue.sync(); }
