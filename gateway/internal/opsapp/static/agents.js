// Placeholder of the Agents page, so that the shell and its page contract
// (app.js) can be built and tested first: the ops-queue branch replaces this
// file with the page itself.
import { h, heading } from "./dom.js";

export const page = {
  id: "agents",
  title: "Agents",
  roles: ["dispatcher"],
  render(main) {
    main.append(heading("Agents"), h("p", { class: "card placeholder" }, "This page arrives with the dispatch tools: field agents, their coverage and this week's figures."));
  },
};
