// Placeholder of the Coverage page, so that the shell and its page contract
// (app.js) can be built and tested first: the ops-queue branch replaces this
// file with the page itself.
import { h, heading } from "./dom.js";

export const page = {
  id: "coverage",
  title: "Coverage",
  roles: ["dispatcher"],
  render(main) {
    main.append(heading("Coverage"), h("p", { class: "card placeholder" }, "This page arrives with the dispatch tools: open work by state and LGA against the agents covering it."));
  },
};
