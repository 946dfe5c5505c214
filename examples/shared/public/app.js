// The example UI: a small single-page app on `@portcullis/client` (ui/client.js), which keeps the
// session alive (refresh before the access token expires and on a 401, one at a time across tabs).
// The browser keeps the HttpOnly cookies, so no token is ever handled here.
//
// ui/     the shell: strings (en, de), the client, the page's state, DOM helpers, router, errors
// views/  one module per view: sign-in (with sign-up, password reset, verification), the second
//         step, the account, the security settings, the activity. A new view is a module that
//         wires its forms on import and registers its render function with `addView`.
import { auth } from "./ui/client.js";
import { $, addView, isSignedInOnly, navigate, render, say } from "./ui/page.js";
import { loadMe, state } from "./ui/state.js";
import { setLanguage, t } from "./ui/strings.js";
import { renderAccount } from "./views/account.js";
import { renderActivity } from "./views/activity.js";
import { renderAdmin } from "./views/admin.js";
import { renderPasskeys } from "./views/passkeys.js";
import { askStepUpCode, renderSecurity, stepUpDone } from "./views/security.js";
import { renderSettings } from "./views/settings.js";
import { renderSignIn, verifyFromLink } from "./views/sign-in.js";
import {
  dropPendingLogin,
  pendingFromProvider,
  renderTwoFactor,
  restorePendingLogin,
} from "./views/two-factor.js";

addView(renderSignIn);
addView(renderTwoFactor);
addView(renderAccount);
addView(renderSecurity);
addView(renderActivity);
addView(renderSettings);
addView(renderAdmin);
addView(renderPasskeys);

$("language").addEventListener("change", (event) => {
  setLanguage(event.target.value);
  say("");
  render();
});

/** A signed-in page that lost its session (here or in another tab) shows the sign-in form, saying why. */
async function checkSession() {
  if (document.visibilityState !== "visible" || !state.me) return;
  if (await loadMe()) {
    say(t("signedOut.elsewhere"), "error");
    navigate("/login", true);
  } else render();
}
/** The light poll: while the page is visible and signed in, the session is checked every 30 s. */
setInterval(checkSession, 30_000);
document.addEventListener("visibilitychange", checkSession);
// Another tab signed out (or its refresh found the session ended): this one follows at once.
auth.on("signedOut", ({ reason }) => {
  if (reason !== "other-tab" || !state.me) return;
  state.me = null;
  state.sessions = [];
  say(t("signedOut.elsewhere"), "error");
  navigate("/login", true);
});

/** Back from an identity provider: the callback redirected here with what happened. */
function backFromProvider(query) {
  if (query.has("error")) say(t("error.provider"), "error");
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
  if (isSignedInOnly(location.pathname) && !state.me) say(t("error.signInFirst"), "error");
  render();
  if (location.pathname === "/verify-email") await verifyFromLink();
}
start();
