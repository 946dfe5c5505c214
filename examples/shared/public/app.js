// The example UI: a small single-page app on `@portcullis/client` (ui/client.js), which keeps the
// session alive (refresh before the access token expires and on a 401, one at a time across tabs).
// The browser keeps the HttpOnly cookies, so no token is ever handled here.
//
// ui/     the shell: strings (en, de), the client, the page's state, DOM helpers, router, errors
// views/  one module per view: sign-in (with sign-up, password reset, verification), the second
//         step, the account, the security settings, the activity. A new view is a module that
//         wires its forms on import and registers its render function with `addView`.
import { auth, signedOutWords } from "./ui/client.js";
import { $, addView, isSignedInOnly, navigate, releaseWaits, render, say } from "./ui/page.js";
import { forwardSignedIn } from "./ui/return-to.js";
import { loadMe, setStepUp, state } from "./ui/state.js";
import { setLanguage, t } from "./ui/strings.js";
import { renderAccount } from "./views/account.js";
import { renderActivity } from "./views/activity.js";
import { renderAdmin } from "./views/admin.js";
import { renderApiKeys } from "./views/api-keys.js";
import { renderAuditLog } from "./views/audit-log.js";
import { renderAuthorizedApps } from "./views/authorized-apps.js";
import { renderDevice } from "./views/device.js";
import { renderInvitation } from "./views/invitation.js";
import { renderOAuthClients } from "./views/oauth-clients.js";
import { renderOAuthConsent } from "./views/oauth-consent.js";
import "./views/organization-admin.js";
import "./views/organization-api-keys.js";
import { renderOrganizations } from "./views/organizations.js";
import { renderPasskeys } from "./views/passkeys.js";
import { askStepUpCode, renderSecurity, stepUpDone } from "./views/security.js";
import { renderSettings } from "./views/settings.js";
import { renderSignIn, verifyFromLink, WAITS_CLEARED_KEY } from "./views/sign-in.js";
import { renderSso } from "./views/sso.js";
import { renderSsoSignIn, ssoErrorWords } from "./views/sso-sign-in.js";
import { renderTrustedBrowsers } from "./views/trusted-browsers.js";
import {
  dropPendingLogin,
  pendingFromProvider,
  renderTwoFactor,
  restorePendingLogin,
} from "./views/two-factor.js";
import { renderWebhooks } from "./views/webhooks.js";

addView(renderSignIn);
addView(renderTwoFactor);
addView(renderAccount);
addView(renderSecurity);
addView(renderTrustedBrowsers);
addView(renderActivity);
addView(renderSettings);
addView(renderAdmin);
addView(renderPasskeys);
addView(renderOrganizations);
addView(renderInvitation);
addView(renderApiKeys);
addView(renderAuditLog);
addView(renderWebhooks);
addView(renderSso);
addView(renderSsoSignIn);
addView(renderAuthorizedApps);
addView(renderOAuthConsent);
addView(renderDevice);
addView(renderOAuthClients);

$("language").addEventListener("change", (event) => {
  setLanguage(event.target.value);
  say("");
  render();
});

/**
 * A signed-in page that lost its session (ended elsewhere, or idle past its timeout) shows the
 * sign-in form, saying why. Checked when the user comes back to the page (focus, the tab shown)
 * and after every call (`run`); there is no timed poll, which would keep an idle tab's session
 * alive and spend requests on a page nobody looks at.
 */
async function checkSession() {
  if (document.visibilityState !== "visible" || !state.me) return;
  const lost = await loadMe();
  if (lost) {
    say(t(lost), "error");
    navigate("/login", true);
  } else render();
}
document.addEventListener("visibilitychange", checkSession);
window.addEventListener("focus", checkSession);
// The client ended the session by itself (another tab signed out, a refresh found it ended, or
// the tab was left idle past the session's timeout): this page follows at once.
auth.on("signedOut", ({ reason }) => {
  if (!state.me || state.signingOut || reason === "logout") return;
  state.me = null;
  state.sessions = [];
  setStepUp(0);
  say(t(signedOutWords()), "error");
  navigate("/login", true);
});
// A password reset in another tab ended the failed sign-ins' wait: this tab's too.
window.addEventListener("storage", (event) => {
  if (event.key === WAITS_CLEARED_KEY) releaseWaits();
});

/** Codes a refused single sign-on step-up comes back with that have words of their own. */
const STEP_UP_REFUSALS = /^(SSO_[A-Z_]+|IDENTITY_PROVIDER_MISMATCH)$/;

/**
 * Back from an identity provider: the callback redirected here with what happened. An enterprise
 * sign-in (SSO) comes back to /login with `?error=<code>`, said in words of its own; a refused SSO
 * step-up comes back to the page it started on, still signed in, and its SSO codes are said so too.
 */
function backFromProvider(query) {
  const code = query.get("error");
  if (code !== null)
    say(
      location.pathname === "/login" || STEP_UP_REFUSALS.test(code)
        ? ssoErrorWords(code)
        : t("error.provider"),
      "error",
    );
  if (query.get("linked")) say(t("done.linked", { name: query.get("linked") }));
  if (query.get("stepUp") === "1") say(stepUpDone());
  if (query.get("twoFactor") === "login")
    pendingFromProvider((query.get("methods") ?? "").split(",").filter(Boolean));
  if (query.get("twoFactor") === "step-up") say(askStepUpCode());
  const back = ["error", "linked", "stepUp", "twoFactor"].some((name) => query.has(name));
  if (back) history.replaceState(null, "", state.pendingLogin ? "/login" : location.pathname);
  if (query.get("twoFactor") === "step-up" && location.pathname === "/")
    history.replaceState(null, "", "/settings/security");
}

async function start() {
  const query = new URLSearchParams(location.search);
  const [, providers] = await Promise.all([
    loadMe(),
    auth.identityProviders.list().then(
      (result) => result.providers,
      () => [],
    ),
  ]);
  state.providers = providers;
  // A reload of the second step: the sign-in is still waiting (until its token runs out). Opening
  // /login afresh starts over.
  const reloaded = performance.getEntriesByType("navigation")[0]?.type === "reload";
  if (
    !state.me &&
    reloaded &&
    !query.has("twoFactor") &&
    location.pathname === "/login" &&
    restorePendingLogin()
  )
    say(t("twoFactor.resumed"));
  else if (!query.has("twoFactor")) dropPendingLogin();
  backFromProvider(query);
  // Signed in already on a sign-in that a page asked for (back from an identity provider, or a
  // cookie the page did not see): on to that page (ui/return-to.js).
  if (state.me && location.pathname === "/login" && forwardSignedIn()) return;
  if (isSignedInOnly(location.pathname) && !state.me) say(t("error.signInFirst"), "error");
  render();
  if (location.pathname === "/verify-email") {
    await verifyFromLink();
    render();
  }
}
start();
