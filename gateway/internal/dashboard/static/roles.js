// What the signed-in member's role lets them do. The server decides
// (403 ROLE_REQUIRED); the page only hides what it would refuse, so a
// viewer is not offered a button that can only fail.
const order = ["owner", "admin", "developer", "viewer"];

// Words for each role, as the team page shows them.
export const roleWords = {
  owner: "Owner: everything, including owners and the plan",
  admin: "Admin: members (not owners), plan, keys, webhooks, audit log",
  developer: "Developer: keys, webhooks and customers",
  viewer: "Viewer: reads only, never key material or secrets",
};

// roleName is a role as a heading or a header says it.
export const roleName = (me) => role(me).charAt(0).toUpperCase() + role(me).slice(1);

// role is the member's role; an answer without one (a platform from
// before teams) is the organization's only user, its owner.
export function role(me) {
  return (me && (me.role || (me.user && me.user.role))) || "owner";
}

// atLeast reports whether the member holds min or a more powerful role.
export function atLeast(me, min) {
  const i = order.indexOf(role(me));
  return i >= 0 && i <= order.indexOf(min);
}

// The abilities the pages ask about, named for what they allow.
export const can = {
  write: (me) => atLeast(me, "developer"), // /api/v1 writes: customers, documents, imports, webhooks, branding
  keys: (me) => atLeast(me, "developer"),
  plan: (me) => atLeast(me, "admin"),
  members: (me) => atLeast(me, "admin"),
  audit: (me) => atLeast(me, "admin"),
  owners: (me) => role(me) === "owner",
};
