// Placeholder of the Reviews page, so that the shell and its page contract
// (app.js) can be built and tested first: the ops-review branch replaces this
// file with the page itself.
import { h, heading } from "./dom.js";

export const page = {
  id: "reviews",
  title: "Reviews",
  roles: ["reviewer"],
  render(main) {
    main.append(heading("Reviews"), h("p", { class: "card placeholder" }, "This page arrives with review before release: held results and their evidence."));
  },
};
