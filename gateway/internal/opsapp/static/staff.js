// Staff (admins only): every member with their role and status, adding a
// member (their one-time enrolment link is shown here once), disabling
// (which ends their sessions at once) and enabling.
import { h, field, busy, table, when, heading, choice } from "/shared/dom.js";

export const page = { id: "staff", title: "Staff", roles: ["admin"], render };

const roles = [["dispatcher", "Dispatcher: agents, coverage, assignment"], ["reviewer", "Reviewer: held results"],
  ["admin", "Admin: staff, organizations' review policy and SLA"]];
const statusWords = { active: "Active", invited: "Invited (not enrolled yet)", disabled: "Disabled" };

async function render(main, ctx) {
  const list = h("div", { id: "staff-list" });
  const redraw = async () => {
    const { staff } = await ctx.api("GET", "/staff");
    list.replaceChildren(members(staff, ctx, redraw));
  };
  await redraw();
  main.append(heading("Staff"), ...addForm(ctx, redraw), h("h2", {}, "Members"), list);
}

function members(staff, ctx, redraw) {
  return table("Staff members", ["Name", "Email", "Role", "Status", "Added", "Action"], staff.map((m) => ({
    attrs: { "data-id": m.id },
    cells: [m.name, m.email, m.role, h("span", { class: "badge " + m.status }, statusWords[m.status] || m.status),
      when(m.createdAt), action(m, ctx, redraw)],
  })));
}

// action is the member's one button: an admin cannot disable themselves.
function action(m, ctx, redraw) {
  if (m.id === ctx.me.id) return h("span", { class: "muted" }, "You");
  const verb = m.status === "disabled" ? "enable" : "disable";
  const cell = h("div", { class: "actions" });
  const button = h("button", { type: "button", class: "small" + (verb === "disable" ? " danger" : " secondary"),
    "aria-label": (verb === "disable" ? "Disable " : "Enable ") + m.name,
    onclick: () => busy(button, cell, async () => {
      await ctx.api("POST", "/staff/" + encodeURIComponent(m.id) + "/" + verb);
      await redraw();
    }) }, verb === "disable" ? "Disable" : "Enable");
  cell.append(button);
  return cell;
}

// addForm creates a member and shows their enrolment link once, with a
// button that copies it for sending.
function addForm(ctx, redraw) {
  const email = h("input", { type: "email", autocomplete: "off", required: true });
  const name = h("input", { type: "text", autocomplete: "off", required: true });
  const role = choice(roles, "dispatcher");
  const submit = h("button", { type: "submit", id: "staff-add" }, "Add and get the enrolment link");
  const out = h("div", { id: "staff-link" });
  const form = h("form", { class: "card narrow", "aria-labelledby": "staff-add-title", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      const d = await ctx.api("POST", "/staff", { email: email.value, name: name.value, role: role.value });
      out.replaceChildren(link(d));
      form.reset();
      await redraw();
      out.querySelector("input").focus();
    });
  } }, h("h2", { id: "staff-add-title" }, "Add a staff member"),
  field("staff-email", "Email", email, { name: "email" }), field("staff-name", "Full name", name, { name: "name" }),
  field("staff-role", "Role", role, { name: "role" }), submit);
  return [form, out];
}

function link(d) {
  const input = h("input", { type: "text", readonly: true, id: "enrol-url", value: d.enrolUrl });
  const status = h("span", { role: "status", class: "muted" });
  const copy = h("button", { type: "button", class: "small secondary", onclick: async () => {
    try {
      await navigator.clipboard.writeText(d.enrolUrl);
      status.textContent = "Copied";
    } catch {
      input.select();
      status.textContent = "Select and copy the link";
    }
  } }, "Copy");
  return h("section", { class: "card once", "aria-labelledby": "enrol-link-title" },
    h("h2", { id: "enrol-link-title" }, "Enrolment link for " + d.staff.name),
    h("p", {}, "Send it to ", h("strong", {}, d.staff.email), " yourself. It works once, until ", when(d.enrolExpiresAt),
      ", and is not shown again."),
    h("label", { for: "enrol-url" }, "Enrolment link"), h("div", { class: "row" }, input, copy), status);
}
