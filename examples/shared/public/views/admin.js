// The back office (docs/back-office.md): shown to the accounts the server's `admin.authorize` allows
// (the examples: ADMIN_EMAILS). `/me` says so (`isAdmin`), so the nav offers the link from the first
// page load and no page asks an admin route to find out (a refused request is a console error on
// every page load of a non-admin). After the step-up of the security page (the same box), it finds
// users by address prefix (a page at a time, "load more" with the cursor), shows one user (sessions,
// identities, second factors, passkeys, lock), locks with a reason and unlocks, ends the user's
// sessions, and signs in as the user: the server then sets this browser's session cookies (the
// tokens never reach this script) and the banner says whose session it is and when it ends.
import { auth } from "../ui/client.js";
import { $, addSignedInPath, button, element, onSubmit, render, run, show } from "../ui/page.js";
import { setStepUp, state } from "../ui/state.js";
import { dateTime, plural, t } from "../ui/strings.js";
import { signOut } from "./account.js";
import { renderStepUp } from "./security.js";

addSignedInPath("/admin");

/** What this page knows: the list, the user shown. */
const admin = {
  query: "",
  users: [],
  nextCursor: null,
  searched: false,
  detail: null,
};

/** Who started an impersonation and when it ends (not a credential): kept for the banner of every tab. */
const IMPERSONATION_KEY = "portcullis-impersonation";
const impersonation = () => {
  try {
    return JSON.parse(localStorage.getItem(IMPERSONATION_KEY) ?? "null");
  } catch {
    return null;
  }
};

// The nav link and the banner are this module's: made here, shown by `renderAdmin`.
const navLink = element("a", { href: "/admin", hidden: true });
navLink.dataset.link = "";
navLink.dataset.i18n = "nav.admin";
navLink.id = "nav-admin";
$("logout").before(navLink);
const banner = element("div", { id: "impersonation-banner", className: "banner", hidden: true });
banner.setAttribute("role", "status");
$("status").before(banner);

function renderBanner() {
  const me = state.me;
  show("impersonation-banner", Boolean(me?.impersonatedBy));
  if (!me?.impersonatedBy) return;
  const started = impersonation();
  const known = started && started.user === me.email;
  banner.replaceChildren(
    element("span", {
      textContent: t("admin.banner", {
        user: me.email,
        admin: known ? started.admin : me.impersonatedBy,
        time: known ? dateTime(started.expiresAt) : t("admin.bannerHour"),
      }),
    }),
    button(t("admin.endImpersonation"), endImpersonation, "secondary"),
  );
}

function endImpersonation() {
  localStorage.removeItem(IMPERSONATION_KEY);
  return signOut(() => auth.logout(), t("admin.impersonationEnded"));
}

const yesNo = (value) => (value ? t("admin.yes") : t("admin.no"));
const listOr = (items) => (items.length > 0 ? items.join(", ") : t("admin.none"));

function userItem(user) {
  const open = button(user.email, () => openUser(user.id), "user-link");
  open.setAttribute("aria-current", String(admin.detail?.user.id === user.id));
  return element(
    "li",
    {},
    open,
    ...(user.lock ? [element("span", { className: "tag danger-tag", textContent: t("admin.locked") })] : []),
  );
}

function sessionLine(session) {
  const line = t("account.sessionLine", {
    browser: session.browser ?? t("account.unknown"),
    os: session.os ?? t("account.unknown"),
    ip: session.ip ?? t("account.unknown"),
  });
  const when = `${t("account.started", { time: dateTime(session.createdAt) })} · ${t("account.active", { time: dateTime(session.lastActiveAt) })}`;
  return element(
    "li",
    {},
    element("span", { textContent: line }),
    element("small", { className: "muted", textContent: ` ${when}` }),
    ...(session.impersonatedBy
      ? [element("span", { className: "tag", textContent: t("admin.impersonation") })]
      : []),
  );
}

function renderDetail() {
  const detail = admin.detail;
  show("admin-detail", Boolean(detail));
  if (!detail) return;
  const { user } = detail;
  $("admin-detail-email").textContent = user.email;
  const rows = [
    ["me.id", user.id],
    ["me.emailVerified", yesNo(user.emailVerified)],
    ["me.createdAt", dateTime(user.createdAt)],
    ["admin.lastSignIn", user.lastSignInAt ? dateTime(user.lastSignInAt) : t("admin.never")],
    ["admin.password", yesNo(user.hasPassword)],
    ["me.twoFactor", listOr(detail.twoFactorMethods.map((method) => t(`method.${method}`)))],
    ["admin.identities", listOr(detail.identities.map((identity) => identity.provider))],
    ["admin.passkeys", listOr(detail.passkeys.map((passkey) => passkey.name ?? t("admin.unnamed")))],
    [
      "admin.lockState",
      user.lock
        ? t("admin.lockedSince", {
            time: dateTime(user.lock.at),
            reason: user.lock.reason ?? t("admin.none"),
          })
        : t("admin.notLocked"),
    ],
  ];
  $("admin-fields").replaceChildren(
    ...rows.flatMap(([key, value]) => [
      element("dt", { textContent: t(key) }),
      element("dd", { textContent: value }),
    ]),
  );
  $("admin-sessions").replaceChildren(...detail.sessions.map(sessionLine));
  show("admin-sessions-empty", detail.sessions.length === 0);
  show("admin-lock", !user.lock);
  show("admin-unlock", Boolean(user.lock));
  $("admin-end-sessions").disabled = detail.sessions.length === 0;
  $("admin-impersonate").disabled = Boolean(user.lock) || user.id === state.me?.id;
}

export function renderAdmin(view) {
  renderBanner();
  const me = state.me;
  if (!me) {
    admin.detail = null;
    admin.users = [];
    admin.searched = false;
  }
  // `/me` says whether `admin.authorize` allows this user (false for an impersonation).
  const allowed = me?.isAdmin === true && !me.impersonatedBy;
  navLink.hidden = !allowed;
  if (view !== "/admin" || !me) return;
  show("admin-denied", !allowed);
  show("admin-checking", false);
  const confirmed = allowed && renderStepUp("admin-step-up");
  show("admin-step-up", allowed && !confirmed);
  show("admin-tools", allowed && confirmed);
  if (!allowed || !confirmed) return;
  $("admin-users").replaceChildren(...admin.users.map(userItem));
  show("admin-empty", admin.searched && admin.users.length === 0);
  show("admin-more", admin.nextCursor !== null);
  renderDetail();
}

/** A page of users: the first one of a new search, or the next one (`more`). */
function loadUsers(more) {
  return run(
    () =>
      auth.admin.listUsers({
        query: admin.query,
        ...(more && admin.nextCursor ? { cursor: admin.nextCursor } : {}),
        limit: 10,
      }),
    (page) => {
      admin.users = more ? [...admin.users, ...page.items] : page.items;
      admin.nextCursor = page.nextCursor;
      admin.searched = true;
      return more ? "" : plural("admin.found", admin.users.length);
    },
    { refresh: false },
  );
}

async function openUser(id) {
  const detail = await run(() => auth.admin.getUser(id), "", { refresh: false });
  if (!detail) return;
  admin.detail = detail;
  render();
  $("admin-detail-email").focus();
}

/** After an action on the user shown: reload it and its line in the list. */
const refreshUser = async () => {
  const detail = await auth.admin.getUser(admin.detail.user.id);
  admin.detail = detail;
  admin.users = admin.users.map((user) => (user.id === detail.user.id ? detail.user : user));
  return detail;
};

onSubmit("admin-search", (_form, { query }) => {
  admin.query = query.trim();
  admin.detail = null;
  return loadUsers(false);
});
$("admin-more").addEventListener("click", () => loadUsers(true));
onSubmit("admin-lock", (form, { reason }) =>
  run(
    async () => {
      await auth.admin.lockUser(admin.detail.user.id, reason.trim() ? { reason: reason.trim() } : {});
      return refreshUser();
    },
    (detail) => t("admin.lockedDone", { email: detail.user.email }),
    { form, refresh: false },
  ).then((result) => result && form.reset()),
);
$("admin-unlock").addEventListener("click", () =>
  run(
    async () => {
      await auth.admin.unlockUser(admin.detail.user.id);
      return refreshUser();
    },
    (detail) => t("admin.unlockedDone", { email: detail.user.email }),
    { refresh: false },
  ),
);
$("admin-end-sessions").addEventListener("click", () =>
  run(
    async () => {
      const { revoked } = await auth.admin.revokeSessions(admin.detail.user.id);
      await refreshUser();
      return revoked;
    },
    (revoked) => t("admin.sessionsEnded", { count: revoked }),
    { refresh: false },
  ),
);
$("admin-impersonate").addEventListener("click", async () => {
  const adminEmail = state.me?.email;
  const started = await run(() => auth.admin.impersonate(admin.detail.user.id), "", { refresh: false });
  if (!started) return;
  // The answer set this browser's session cookies: from here on the page is the user's.
  localStorage.setItem(
    IMPERSONATION_KEY,
    JSON.stringify({ admin: adminEmail, user: started.user.email, expiresAt: started.expiresAt }),
  );
  setStepUp(0);
  admin.detail = null;
  location.assign("/account");
});
