// The account page: the profile, the sessions (revoke one, the others, or all, each asked first)
// and the sign-in methods; and signing out.
import { auth, isApiError } from "../ui/client.js";
import { $, askFirst, button, element, navigate, run, show } from "../ui/page.js";
import { state } from "../ui/state.js";
import { dateTime, number, t } from "../ui/strings.js";

/** The profile rows of `#me` and `#security-state`. */
export function renderProfile(target) {
  const { me } = state;
  const methods = me.twoFactorMethods.map((method) => t(`method.${method}`)).join(", ") || t("none");
  const rows = [
    ["me.name", me.name ?? "—"],
    ["me.emailVerified", me.emailVerified ? t("yes") : t("no")],
    ["me.twoFactor", methods],
    ...(me.preferredTwoFactorMethod ? [["me.preferred", t(`method.${me.preferredTwoFactorMethod}`)]] : []),
    ["me.createdAt", dateTime(me.createdAt)],
    ["me.id", me.id],
  ];
  $(target).replaceChildren(
    ...rows.flatMap(([key, value]) => [
      element("dt", { textContent: t(key) }),
      element("dd", { textContent: value }),
    ]),
  );
}

function sessionItem(session) {
  const unknown = t("account.unknown");
  const line = t("account.sessionLine", {
    browser: session.browser ?? unknown,
    os: session.os ?? unknown,
    ip: session.ip ?? unknown,
  });
  const times = `${t("account.started", { time: dateTime(session.createdAt) })} · ${t("account.active", { time: dateTime(session.lastActiveAt) })}`;
  return element(
    "li",
    {},
    element(
      "div",
      {},
      element("strong", { textContent: line }),
      session.current ? element("span", { className: "badge", textContent: t("account.thisDevice") }) : "",
      element("br"),
      element("small", { className: "muted", textContent: times }),
    ),
    revokeButton(session, line),
  );
}

/**
 * "Revoke" for one session, named with its device for a screen reader ("Revoke Chrome on Linux ·
 * 127.0.0.1"). This device's own session is a sign-out on purpose: it says so, not "ended elsewhere".
 */
function revokeButton(session, line) {
  const name = session.current
    ? t("account.revokeThisNamed", { session: line })
    : t("account.revokeNamed", { session: line });
  const question = session.current ? t("confirm.revokeThis") : t("confirm.revoke", { session: line });
  const node = button(
    t("account.revoke"),
    () =>
      askFirst(question, t("confirm.yes.revoke"), () =>
        session.current
          ? signOut(() => auth.sessions.revoke(session.id), t("done.revokedThis"))
          : run(() => auth.sessions.revoke(session.id), t("done.revoked")),
      ),
    "danger small",
  );
  node.setAttribute("aria-label", name);
  return node;
}

export function renderAccount() {
  if (!state.me) {
    for (const id of ["me", "sessions", "linked-providers"]) $(id).replaceChildren();
    return;
  }
  $("me-email").textContent = state.me.email;
  renderProfile("me");
  show("resend-verification", !state.me.emailVerified);
  show(
    "revoke-others",
    state.sessions.some((session) => !session.current),
  );
  $("sessions").replaceChildren(...state.sessions.map(sessionItem));
  const linked = state.me.identityProviders ?? [];
  const nameOf = (id) => state.providers.find((provider) => provider.name === id)?.displayName ?? id;
  $("linked-providers").replaceChildren(
    ...[...(state.me.hasPassword ? [t("account.passwordMethod")] : []), ...linked.map(nameOf)].map((method) =>
      element("li", { textContent: method }),
    ),
  );
}

$("resend-verification").addEventListener("click", (event) =>
  run(
    () =>
      auth.verification.send().catch((error) => {
        // 304 EMAIL_ALREADY_VERIFIED (verified from the email meanwhile): done, not a failure.
        if (isApiError(error) && error.code === "EMAIL_ALREADY_VERIFIED") return { alreadyVerified: true };
        throw error;
      }),
    (result) => (result.alreadyVerified ? t("verify.already") : t("done.verificationSent")),
    { button: event.currentTarget },
  ),
);

/** Signs this page out on purpose: no "signed out elsewhere" notice for it. */
export const signOut = (action, done) => {
  state.signingOut = true;
  return run(action, done)
    .then(() => navigate("/login", true))
    .finally(() => {
      state.signingOut = false;
    });
};
$("logout").addEventListener("click", () => signOut(() => auth.logout(), t("done.logout")));
$("revoke-all").addEventListener("click", () =>
  askFirst(t("confirm.revokeAll"), t("confirm.yes.revokeAll"), () =>
    signOut(() => auth.sessions.revokeAll(), t("done.revokedAll")),
  ),
);
$("revoke-others").addEventListener("click", (event) => {
  const origin = event.currentTarget;
  askFirst(t("confirm.revokeOthers"), t("confirm.yes.revokeOthers"), () =>
    run(
      () => auth.sessions.revokeOthers(),
      (result) => t("done.revokedOthers", { count: number(result.revoked) }),
      { button: origin },
    ),
  );
});
