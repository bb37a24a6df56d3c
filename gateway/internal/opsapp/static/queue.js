// Placeholder of the Queue page, so that the shell and its page contract
// (app.js) can be built and tested first: the ops-queue branch replaces this
// file with the page itself.
import { h, heading } from "./dom.js";

export const page = {
  id: "queue",
  title: "Queue",
  roles: ["dispatcher"],
  render(main) {
    main.append(heading("Queue"), h("p", { class: "card placeholder" }, "This page arrives with the dispatch tools: every open live address, its due time, and reassignment."));
  },
};
