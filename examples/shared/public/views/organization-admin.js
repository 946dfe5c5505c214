// The active organization on the page /organizations (views/organizations.js): its members and
// their roles (change a role, remove a member, leave), invitations by email with a role and the
// pending ones (revoke), and its roles (create one from the declared permissions, delete a custom
// one). Each card shows only what the user's role allows; the server decides every call anyway.
import {
  $,
  button,
  cardConfirm,
  element,
  onSubmit,
  permissionChoices,
  render,
  run,
  show,
  validate,
} from "../ui/page.js";
import { state } from "../ui/state.js";
import { dateTime, t } from "../ui/strings.js";
import { orgCall } from "./organization-calls.js";
import { addActiveCard, organizations, reloadOrganizations, roleName } from "./organizations.js";

$("org-active").innerHTML = `
  <div class="card">
    <h2 id="org-active-title"></h2>
    <dl class="org-fields">
      <dt data-i18n="org.yourRole">Your role</dt><dd id="org-my-role"></dd>
      <dt data-i18n="org.permissions">What your role allows</dt><dd id="org-my-permissions"></dd>
    </dl>
  </div>
  <div class="card">
    <h2 data-i18n="org.membersTitle">Members</h2>
    <ul id="org-members" class="list org-members"></ul>
  </div>
  <div id="org-invite-card" class="card" hidden>
    <form id="org-invite" novalidate>
      <h2 data-i18n="org.inviteTitle">Invite someone</h2>
      <p class="muted" data-i18n="org.inviteLead"></p>
      <label><span data-i18n="org.email">Email address</span> <input name="email" type="email" autocomplete="off" required></label>
      <label><span data-i18n="org.role">Role</span> <select name="role"></select></label>
      <button type="submit" data-i18n="org.invite">Send the invitation</button>
    </form>
    <h3 data-i18n="org.pendingTitle">Pending invitations</h3>
    <ul id="org-pending" class="list org-members"></ul>
    <p id="org-pending-none" class="muted" data-i18n="org.pendingNone" hidden></p>
  </div>
  <div id="org-roles-card" class="card" hidden>
    <h2 data-i18n="org.rolesTitle">Roles</h2>
    <ul id="org-roles" class="list org-members"></ul>
    <form id="org-role-create" novalidate>
      <h3 data-i18n="org.newRole">New role</h3>
      <label><span data-i18n="org.roleName">Name of the role</span> <input name="name" maxlength="32" autocomplete="off" autocapitalize="none" spellcheck="false" required></label>
      <fieldset id="org-role-permissions" class="choices"></fieldset>
      <button type="submit" data-i18n="org.createRole">Create the role</button>
    </form>
  </div>`;

/** The in-page confirmation, shown in the card of the button that asked, the focus given back on close. */
const { ask: askFirst, close: closeConfirm } = cardConfirm("org", "org.yes");

/** A button named for what it acts on (its text stays short at 375 px). */
const namedButton = (text, name, onClick, className) => {
  const node = button(text, onClick, className);
  node.setAttribute("aria-label", name);
  return node;
};
const can = (active, permission) => active.detail.permissions.includes(permission);
/** An organization call whose success loads the page's lists again. */
const change = (key, init, done) =>
  run(async () => {
    const result = await orgCall(key, init);
    reloadOrganizations();
    return result;
  }, done);

/** The roles the user may pick: the organization's when they manage roles, else the built-in ones. */
function roleChoices(active) {
  const names = active.roles ? active.roles.map((role) => role.name) : ["admin", "member"];
  return names.filter((name) => name !== "owner" || active.detail.role === "owner");
}
const roleSelect = (active, selected, label) => {
  const select = element(
    "select",
    {},
    ...roleChoices(active).map((name) =>
      element("option", { value: name, textContent: roleName(name), selected: name === selected }),
    ),
  );
  if (label) select.setAttribute("aria-label", label);
  return select;
};

function memberControls(active, member) {
  const id = active.id;
  const params = { id, userId: member.userId };
  const name = active.detail.organization.name;
  if (member.userId === state.me.id)
    return [
      button(
        t("org.leave"),
        (event) =>
          askFirst(event.currentTarget, t("org.confirmLeave", { name }), () =>
            change("DELETE /organizations/:id/members/:userId", { params }, t("done.left", { name })),
          ),
        "danger small",
      ),
    ];
  // Only an owner changes or removes an owner (the server refuses anyone else anyway).
  if (member.role === "owner" && active.detail.role !== "owner") return [];
  const controls = [];
  if (can(active, "member:update-role")) {
    const select = roleSelect(active, member.role, t("org.roleOf", { email: member.email }));
    const save = () =>
      change(
        "PATCH /organizations/:id/members/:userId",
        { params, body: { role: select.value } },
        t("done.roleChanged", { email: member.email, role: roleName(select.value) }),
      );
    controls.push(
      select,
      namedButton(t("org.saveRole"), t("org.saveRoleNamed", { email: member.email }), save, "small"),
    );
  }
  if (can(active, "member:remove"))
    controls.push(
      namedButton(
        t("org.remove"),
        t("org.removeNamed", { email: member.email }),
        (event) =>
          askFirst(event.currentTarget, t("org.confirmRemove", { email: member.email, name }), () =>
            change(
              "DELETE /organizations/:id/members/:userId",
              { params },
              t("done.memberRemoved", { email: member.email }),
            ),
          ),
        "danger small",
      ),
    );
  return controls;
}

function memberItem(active, member) {
  const who = member.userId === state.me.id ? `${member.email} (${t("org.you")})` : member.email;
  return element(
    "li",
    {},
    element("span", {
      className: "org-text",
      textContent: t("org.memberLine", { who, role: roleName(member.role) }),
    }),
    element("span", { className: "row" }, ...memberControls(active, member)),
  );
}

function pendingItem(active, invitation) {
  const revoke = (event) =>
    askFirst(event.currentTarget, t("org.confirmRevoke", { email: invitation.email }), () =>
      change(
        "DELETE /organizations/:id/invitations/:invitationId",
        { params: { id: active.id, invitationId: invitation.id } },
        t("done.invitationRevoked"),
      ),
    );
  const line = t("org.pendingLine", {
    email: invitation.email,
    role: roleName(invitation.role),
    time: dateTime(invitation.expiresAt),
  });
  return element(
    "li",
    {},
    element("span", { className: "org-text", textContent: line }),
    namedButton(t("org.revoke"), t("org.revokeNamed", { email: invitation.email }), revoke, "danger small"),
  );
}

/** Permissions as a row of tags ("nothing" for none): they wrap between names, never inside one. */
const permissionTags = (permissions) =>
  permissions.length === 0
    ? element("span", { className: "muted", textContent: t("org.nothing") })
    : element(
        "span",
        { className: "org-tags" },
        ...permissions.map((permission) => element("span", { className: "tag", textContent: permission })),
      );

function roleItem(active, role) {
  const item = element(
    "li",
    {},
    element(
      "span",
      { className: "org-role" },
      element("strong", { textContent: roleName(role.name) }),
      role.builtIn ? element("span", { className: "muted", textContent: ` (${t("org.builtIn")})` }) : "",
      permissionTags(role.permissions),
    ),
  );
  if (!role.builtIn) {
    const remove = (event) =>
      askFirst(event.currentTarget, t("org.confirmDeleteRole", { role: role.name }), () =>
        change(
          "DELETE /organizations/:id/roles/:role",
          { params: { id: active.id, role: role.name } },
          t("done.roleDeleted", { role: role.name }),
        ),
      );
    item.append(
      namedButton(t("org.deleteRole"), t("org.deleteRoleNamed", { role: role.name }), remove, "danger small"),
    );
  }
  return item;
}

/** The declared permissions (what an owner holds) as checkboxes, those picked before kept. */
function drawPermissionChoices(active) {
  const all = active.roles?.find((role) => role.name === "owner")?.permissions ?? [];
  permissionChoices($("org-role-permissions"), t("org.rolePermissions"), all);
}

function drawActive(active) {
  const { detail } = active;
  $("org-active-title").textContent = t("org.activeTitle", { name: detail.organization.name });
  $("org-my-role").textContent = roleName(detail.role);
  $("org-my-permissions").replaceChildren(permissionTags(detail.permissions));
  closeConfirm();
  $("org-members").replaceChildren(...(active.members ?? []).map((member) => memberItem(active, member)));
  show("org-invite-card", Boolean(active.invitations));
  if (active.invitations) {
    const select = $("org-invite").querySelector("[name=role]");
    const kept = select.value || "member";
    select.replaceWith(Object.assign(roleSelect(active, kept), { name: "role" }));
    $("org-pending").replaceChildren(
      ...active.invitations.map((invitation) => pendingItem(active, invitation)),
    );
    show("org-pending-none", active.invitations.length === 0);
  }
  show("org-roles-card", Boolean(active.roles));
  if (active.roles) {
    $("org-roles").replaceChildren(...active.roles.map((role) => roleItem(active, role)));
    drawPermissionChoices(active);
  }
}

/** Loads the members, and the invitations and roles when the user's role may see them. */
async function loadActive(active) {
  const params = { id: active.id };
  const [members, invitations, roles] = await Promise.all([
    orgCall("GET /organizations/:id/members", { params, query: { limit: 100 } }),
    can(active, "member:invite") ? orgCall("GET /organizations/:id/invitations", { params }) : null,
    can(active, "role:manage") ? orgCall("GET /organizations/:id/roles", { params }) : null,
  ]);
  Object.assign(active, {
    members: members.items,
    invitations: invitations?.items ?? null,
    roles: roles?.items ?? null,
  });
}
addActiveCard(loadActive, drawActive);

onSubmit("org-invite", (form, values, submitter) => {
  if (!validate(form)) return;
  const email = values.email.trim();
  const id = organizations.active?.id;
  return run(
    async () => {
      const result = await orgCall("POST /organizations/:id/invitations", {
        params: { id },
        body: { email, role: values.role },
      });
      reloadOrganizations();
      return result;
    },
    t("done.invited", { email }),
    { form, button: submitter },
  ).then((result) => {
    if (result) form.querySelector("[name=email]").value = "";
    render();
  });
});

onSubmit("org-role-create", (form, values, submitter) => {
  if (!validate(form)) return;
  const name = values.name.trim();
  const permissions = [...form.querySelectorAll("[name=permission]:checked")].map((input) => input.value);
  const id = organizations.active?.id;
  return run(
    async () => {
      const result = await orgCall("POST /organizations/:id/roles", {
        params: { id },
        body: { name, permissions },
      });
      reloadOrganizations();
      return result;
    },
    t("done.roleCreated", { role: name }),
    { form, button: submitter },
  ).then((result) => {
    if (!result) return;
    form.reset();
    render();
  });
});
