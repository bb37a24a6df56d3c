// Team: the organization's members and their roles. Admins and owners
// invite by a link they copy and send themselves (there is no mail
// server), revoke pending invitations, change roles and remove members;
// only an owner is offered what concerns owners. Everyone else reads
// the list.
import { dash } from "./api.js";
import { h, field, busy, when, table, copyable } from "./dom.js";
import { can, roleWords } from "./roles.js";

const names = { owner: "Owner", admin: "Admin", developer: "Developer", viewer: "Viewer" };

export async function view({ me }) {
  const manage = can.members(me);
  const members = h("div", { id: "members" });
  const invitations = h("div", { id: "invitations" });
  const redraw = async () => {
    const d = await dash("GET", "/members");
    members.replaceChildren(memberTable(me, d.members || [], manage, redraw));
    if (manage) invitations.replaceChildren(invitationTable(d.invitations || [], redraw));
  };
  await redraw();
  return [h("h1", { tabindex: "-1" }, "Team"),
    manage ? inviteForm(me, redraw) : h("p", { class: "muted", id: "team-readonly" },
      "Owners and admins invite members and change roles; ask one of them."),
    h("h2", { id: "members-title", tabindex: "-1" }, "Members"), members,
    manage && [h("h2", {}, "Pending invitations"), invitations]];
}

// offered are the roles this member may hand out: an owner only by an owner.
const offered = (me) => ["viewer", "developer", "admin", ...(can.owners(me) ? ["owner"] : [])];

// roleSelect: the invite form explains each role; a member's row, narrow
// on a phone, names it.
function roleSelect(me, selected, short) {
  return h("select", {}, offered(me).map((r) => h("option", { value: r, selected: r === selected }, short ? names[r] : roleWords[r])));
}

function inviteForm(me, redraw) {
  const email = h("input", { type: "email", autocomplete: "off", required: true });
  const role = roleSelect(me, "viewer");
  const submit = h("button", { type: "submit", id: "invite-send" }, "Invite");
  const out = h("div", { id: "invite-out" });
  const form = h("form", { class: "card", "aria-labelledby": "invite-title", onsubmit: (ev) => {
    ev.preventDefault();
    busy(submit, form, async () => {
      const d = await dash("POST", "/invitations", { email: email.value.trim(), role: role.value });
      form.reset();
      await redraw();
      out.replaceChildren(linkCard(d));
      out.querySelector("input").focus();
    });
  } }, h("h2", { id: "invite-title" }, "Invite a member"),
  h("div", { class: "row filters" }, field("invite-email", "Email", email, { name: "email" }), field("invite-role", "Role", role, { name: "role" })),
  submit);
  return [form, out];
}

// linkCard shows the invitation link once: the person copies it and
// sends it themselves.
function linkCard(d) {
  const { nodes } = copyable("invite-link", d.link, { button: "copy-invite", describedBy: "invite-link-note" });
  const inv = d.invitation || {};
  return h("section", { class: "card notice", "aria-labelledby": "invite-link-title" },
    h("h2", { id: "invite-link-title" }, `Invitation for ${inv.email} (${names[inv.role] || inv.role})`),
    h("p", { id: "invite-link-note" }, "Send this link to them yourself. It is shown only now",
      inv.expiresAt ? [" and works once, until ", when(inv.expiresAt)] : "", "."),
    h("label", { for: "invite-link" }, "Invitation link"), nodes);
}

function memberTable(me, members, manage, redraw) {
  if (!members.length) return h("p", {}, "No members.");
  return table("Members", ["Name", "Email", "Role", "Joined", ...(manage ? ["Actions"] : [])], members.map((m) => ({
    attrs: { "data-member": m.id, "data-email": m.email },
    cells: [m.name || "—", h("span", { class: "email" }, m.email), h("span", { class: "role" }, names[m.role] || m.role), when(m.createdAt),
      ...(manage ? [actions(me, m, redraw)] : [])],
  })));
}

// actions: a member's role change and removal. Yourself and, for an
// admin, the owners are not offered: the server would refuse.
function actions(me, m, redraw) {
  const cell = h("div", { class: "actions" });
  const self = m.id === me.user.id || m.email === me.user.email;
  if (self) return h("span", { class: "muted" }, "You");
  if (m.role === "owner" && !can.owners(me)) return cell;
  const who = m.name || m.email;
  const draw = (focus) => {
    const role = roleSelect(me, m.role, true);
    role.setAttribute("aria-label", `Role of ${who}`);
    const save = h("button", { type: "button", class: "secondary small", "data-act": "role", "aria-label": `Change the role of ${who}`,
      onclick: () => busy(save, cell, async () => {
        await dash("PATCH", "/members/" + encodeURIComponent(m.id), { role: role.value });
        await redraw();
        document.getElementById("members-title").focus();
      }) }, "Change role");
    const remove = h("button", { type: "button", class: "danger small", "data-act": "remove", "aria-label": `Remove ${who}`, onclick: confirm }, "Remove");
    cell.replaceChildren(h("div", { class: "row" }, role, save, remove));
    if (focus) cell.querySelector(`[data-act="${focus}"]`).focus();
  };
  const confirm = () => {
    const yes = h("button", { type: "button", class: "danger small", id: "confirm-remove", onclick: () => busy(yes, cell, async () => {
      await dash("DELETE", "/members/" + encodeURIComponent(m.id));
      await redraw();
      document.getElementById("members-title").focus();
    }) }, "Remove member");
    cell.replaceChildren(h("p", {}, `Remove ${who}? Their sessions end at once; they need a new invitation to come back.`),
      yes, h("button", { type: "button", class: "secondary small", onclick: () => draw("remove") }, "Cancel"));
    yes.focus();
  };
  draw();
  return cell;
}

function invitationTable(list, redraw) {
  if (!list.length) return h("p", { class: "muted" }, "No pending invitations.");
  return table("Pending invitations", ["Email", "Role", "Sent", "Expires", "Action"], list.map((i) => {
    const cell = h("div", {});
    const revoke = h("button", { type: "button", class: "secondary small", "aria-label": `Revoke the invitation of ${i.email}`,
      onclick: () => busy(revoke, cell, async () => {
        await dash("DELETE", "/invitations/" + encodeURIComponent(i.id));
        await redraw();
      }) }, "Revoke");
    cell.append(revoke);
    return { attrs: { "data-invitation": i.id }, cells: [h("span", { class: "email" }, i.email), names[i.role] || i.role, when(i.createdAt), when(i.expiresAt), cell] };
  }));
}
