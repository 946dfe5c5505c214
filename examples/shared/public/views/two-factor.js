// A sign-in's second step, on the client's 2FA flow: a code from the app or an email, or a
// recovery code. The step survives a reload (its token is an HttpOnly cookie; only the methods are
// kept in sessionStorage) until its token runs out.
import { auth } from "../ui/client.js";
import { $, lastErrorCode, navigate, onSubmit, radios, run, say, show, validate } from "../ui/page.js";
import { state } from "../ui/state.js";
import { t } from "../ui/strings.js";
import { afterSignIn } from "./settings.js";

const PENDING_KEY = "portcullis-pending-login";

/** The client's flow for a pending sign-in (the 2FA token rides in its cookie). */
const flowFor = (pending) =>
  auth.twoFactor({
    twoFactorRequired: true,
    twoFactorMethods: pending.twoFactorMethods,
    preferredTwoFactorMethod: pending.preferredTwoFactorMethod ?? null,
    twoFactorAuthenticationToken: pending.twoFactorAuthenticationToken ?? null,
    user: null,
  });

function keepPendingLogin() {
  const pending = state.pendingLogin;
  if (!pending) {
    sessionStorage.removeItem(PENDING_KEY);
    return;
  }
  sessionStorage.setItem(
    PENDING_KEY,
    JSON.stringify({
      twoFactorMethods: pending.twoFactorMethods,
      preferredTwoFactorMethod: pending.preferredTwoFactorMethod ?? null,
      viaProvider: Boolean(pending.viaProvider),
      emailRequested: state.emailRequested,
    }),
  );
}

/** A sign-in whose answer asked for a second factor (a password step, or a provider's return). */
function setPending(pending, emailRequested = false) {
  state.pendingLogin = { ...pending, flow: flowFor(pending) };
  state.twoFactorChoice = null;
  state.emailRequested = emailRequested;
  keepPendingLogin();
}

/** After a reload of the second step: the sign-in is still waiting. False when nothing was kept. */
export function restorePendingLogin() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? "null");
    if (!saved || !Array.isArray(saved.twoFactorMethods)) return false;
    setPending(saved, Boolean(saved.emailRequested));
    return true;
  } catch {
    return false;
  }
}

/** Back from an identity provider whose account has 2FA (`?twoFactor=login&methods=`). */
export function pendingFromProvider(methods) {
  setPending({ twoFactorMethods: methods, preferredTwoFactorMethod: methods[0] ?? null, viaProvider: true });
}

export function dropPendingLogin() {
  state.pendingLogin = null;
  state.twoFactorChoice = null;
  state.emailRequested = false;
  keepPendingLogin();
}

/** The password step asked for a second factor: show the second step. */
export function startSecondFactor(answer) {
  // The login said whether it mailed a code (email preferred); a cooldown may have held it back.
  setPending(answer, answer.emailCodeSent === true);
  say("");
  navigate("/login", true);
}

export function renderTwoFactor() {
  const pending = state.pendingLogin;
  if (!pending) return;
  const methods = pending.twoFactorMethods;
  const method = state.twoFactorChoice ?? pending.preferredTwoFactorMethod ?? methods[0];
  $("two-factor-methods").replaceChildren(
    ...(methods.length > 1 ? radios("method", methods, method, t("twoFactor.methodLegend")) : []),
  );
  show("two-factor-methods", methods.length > 1);
  show("two-factor-email", methods.includes("email"));
  const hint = method !== "email" ? "totp" : state.emailRequested ? "emailSent" : "email";
  $("two-factor-hint").textContent = t(`twoFactor.hint.${hint}`);
  // Recovery codes come with the authenticator app: an email-only account has none.
  show("two-factor-recover", methods.includes("totp") || methods.includes("recovery"));
}

/** After a second factor: once signed in, forget the pending sign-in and go to the account. */
const finishSecondFactor = (form) => (result) => {
  if (!result) return;
  dropPendingLogin();
  form.reset();
  afterSignIn(result);
};

/** A 2FA token that ran out (or a reload after it did): back to the sign-in form, with the reason shown. */
const secondStepLost = () => {
  if (!state.pendingLogin || lastErrorCode !== "TWO_FACTOR_TOKEN_INVALID") return;
  dropPendingLogin();
  navigate("/login", true);
};

$("two-factor-code").addEventListener("change", (event) => {
  if (event.target.name !== "method") return;
  state.twoFactorChoice = event.target.value;
  renderTwoFactor();
});
$("two-factor-back").addEventListener("click", (event) => {
  event.preventDefault();
  dropPendingLogin();
  say("");
  navigate("/login", true);
});
/** `{ trustBrowser: true }` when "trust this browser" is ticked (it applies to a recovery code too). */
const trusting = () => ($("two-factor-trust").checked ? { trustBrowser: true } : {});

onSubmit("two-factor-code", (form, { code, method }) => {
  if (!validate(form)) return;
  const pending = state.pendingLogin;
  // An emailed code needs its method named unless email is the preferred one: when the user asked
  // for an email code, send "email" even if the method choice was left alone.
  const chosen = method || (state.emailRequested ? "email" : undefined);
  const options = { ...(chosen ? { method: chosen } : {}), ...trusting() };
  return run(() => pending.flow.submit(code, options), t("done.login"), {
    form,
    method: chosen ?? pending.preferredTwoFactorMethod ?? pending.twoFactorMethods[0],
  })
    .then(finishSecondFactor(form))
    .then(secondStepLost);
});
$("two-factor-email").addEventListener("click", (event) =>
  run(
    () => state.pendingLogin.flow.sendEmailCode(),
    () => {
      state.emailRequested = true;
      if (state.pendingLogin?.twoFactorMethods.length > 1) state.twoFactorChoice = "email";
      keepPendingLogin();
      return t("done.codeSent");
    },
    { button: event.currentTarget, refresh: false },
  ).then(secondStepLost),
);
onSubmit(
  "two-factor-recover",
  (form, { code }) =>
    validate(form) &&
    run(() => state.pendingLogin.flow.recover(code, trusting()), t("done.recovered"), {
      form,
      method: "recovery",
    })
      .then(finishSecondFactor(form))
      .then(secondStepLost),
);
