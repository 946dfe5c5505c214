// The security settings: a step-up first (the password, then a second factor when 2FA is on, or
// a provider's sign-in for a password-less account, or a passkey: views/passkeys.js), then the
// authenticator app, codes by email, the method asked first, and the identity providers.
import { auth } from "../ui/client.js";
import {
  $,
  button,
  element,
  lastErrorCode,
  markField,
  onSubmit,
  radios,
  render,
  run,
  say,
  show,
  validate,
} from "../ui/page.js";
import { setStepUp, state, stepUpOpen } from "../ui/state.js";
import { t } from "../ui/strings.js";
import { renderProfile } from "./account.js";
import { authorizeUrl } from "./sign-in.js";
import { signsInWithSso, ssoStepUpButton } from "./sso-step-up.js";

/** The step-up cookie lasts five minutes: the page closes the settings a little before. */
const STEP_UP_MS = 4.5 * 60 * 1000;

/** A step-up is done: the settings are open for a few minutes. */
export const stepUpDone = () => {
  setStepUp(Date.now() + STEP_UP_MS);
  state.stepUpFlow = null;
  show("step-up-code", false);
  return t("done.stepUp");
};

/** A step-up waits for its second factor (its answer, or a provider's return without one). */
export function askStepUpCode(answer) {
  const me = state.me;
  state.stepUpFlow = auth.twoFactor(
    answer ?? {
      twoFactorRequired: true,
      twoFactorMethods: me?.twoFactorMethods ?? [],
      preferredTwoFactorMethod: me?.preferredTwoFactorMethod ?? null,
      twoFactorAuthenticationToken: null,
      stepUpToken: null,
    },
  );
  show("step-up-code", true);
  return t("done.stepUpCode");
}

function clearSettings() {
  for (const id of ["totp-confirm", "email-enable", "step-up-code"]) show(id, false);
  for (const id of ["security-state", "recovery-codes"]) $(id).replaceChildren();
  $("totp-secret").textContent = "";
  $("totp-uri").textContent = "";
  $("totp-qr").removeAttribute("src");
}

/** Where the step-up box lives in the markup (the security page): other pages borrow it. */
const stepUpHome = { parent: $("step-up-box").parentElement, next: $("step-up-box").nextSibling };

/**
 * The step-up (password, second factor, or a login at the account's identity provider or single
 * sign-on for a password-less account) in the element `hostId`, or in its place on the security
 * page without one: pages that need a step-up (security, back office) share this one box. True
 * while the step-up is live.
 */
export function renderStepUp(hostId) {
  const { me, providers } = state;
  const box = $("step-up-box");
  if (hostId && box.parentElement !== $(hostId)) $(hostId).append(box);
  else if (!hostId && box.parentElement !== stepUpHome.parent)
    stepUpHome.parent.insertBefore(box, stepUpHome.next);
  const linked = new Set(me.identityProviders ?? []);
  // A password-less account confirms changes by signing in at its provider again.
  const stepUpWith = providers.filter((provider) => !me.hasPassword && linked.has(provider.name));
  const choices = stepUpWith.map((provider) =>
    button(t("security.confirmWith", { name: provider.displayName }), () => {
      location.href = authorizeUrl(provider.name, true);
    }),
  );
  if (signsInWithSso(me)) choices.push(ssoStepUpButton());
  $("step-up-providers").replaceChildren(...choices);
  show("step-up-providers", choices.length > 0);
  const confirmed = stepUpOpen();
  show("step-up-box", !confirmed);
  show("step-up", !confirmed && me.hasPassword !== false && $("step-up-code").hidden);
  return confirmed;
}

function renderProviderSettings() {
  const { me, providers } = state;
  const linked = new Set(me.identityProviders ?? []);
  $("provider-settings").replaceChildren(
    ...providers.map((provider) =>
      linked.has(provider.name)
        ? button(
            t("security.unlink", { name: provider.displayName }),
            () =>
              run(
                () => auth.identityProviders.unlink(provider.name),
                t("done.unlinked", { name: provider.displayName }),
              ),
            "danger",
          )
        : button(t("security.link", { name: provider.displayName }), () =>
            run(async () => {
              const { authorizationUrl } = await auth.identityProviders.link(provider.name, {
                returnTo: "/settings/security",
              });
              location.href = authorizationUrl;
            }),
          ),
    ),
  );
  show("provider-settings-card", providers.length > 0);
}

export function renderSecurity(view) {
  const { me } = state;
  if (!me) {
    clearSettings();
    return;
  }
  renderProfile("security-state");
  renderProviderSettings();
  // The box stays where another page borrowed it while that page is shown (that page renders it).
  const borrowed = [
    "/settings/account",
    "/admin",
    "/api-keys",
    "/organizations",
    "/admin/oauth/clients",
  ].includes(view);
  const confirmed = borrowed ? stepUpOpen() : renderStepUp();
  show("settings", confirmed);
  const totpOn = me.twoFactorMethods.includes("totp");
  const emailOn = me.twoFactorMethods.includes("email");
  $("totp-state").textContent = totpOn ? t("security.totpOn") : t("security.totpIsOff");
  $("totp-setup").textContent = totpOn ? t("security.totpAgain") : t("security.totpSetup");
  show("totp-disable", totpOn);
  $("email-state").textContent = emailOn
    ? t("security.emailIsOn", { email: me.email })
    : t("security.emailIsOff");
  show("email-send", !emailOn);
  show("email-disable", emailOn);
  if (emailOn) show("email-enable", false);
  show("preferred", me.twoFactorMethods.length > 1);
  if (me.twoFactorMethods.length > 1 && !$("preferred").contains(document.activeElement))
    $("preferred-methods").replaceChildren(
      ...radios(
        "method",
        me.twoFactorMethods,
        me.preferredTwoFactorMethod ?? me.twoFactorMethods[0],
        t("security.preferredLegend"),
      ),
    );
}

onSubmit(
  "step-up",
  (form, body) =>
    validate(form) &&
    run(
      () => auth.stepUp(body),
      (result) => {
        form.reset();
        return result.twoFactorRequired ? askStepUpCode(result) : stepUpDone();
      },
      // A wrong password here is not a sign-in: no "email or password" in the message.
      { form, messages: { INVALID_CREDENTIALS: "stepUp.wrongPassword" } },
    ),
);
/**
 * A refused code: the status line's words also under the code's field, which gets the focus (and
 * so comes into view), beside the form the user is looking at.
 */
function codeRefused(form) {
  const input = form.querySelector("[name=code]");
  if (!input || input.hasAttribute("aria-invalid")) return;
  markField(input, $("status").textContent);
  input.focus();
}

onSubmit("step-up-code", (form, { code }) => {
  if (!validate(form)) return;
  if (!state.stepUpFlow) askStepUpCode();
  return run(() => state.stepUpFlow.submit(code.trim()), stepUpDone, {
    form,
    method: state.me?.preferredTwoFactorMethod ?? state.me?.twoFactorMethods[0],
  }).then((result) => {
    if (result) form.reset();
    // The step-up's 2FA token ran out: start again with the password.
    else if (lastErrorCode === "TWO_FACTOR_TOKEN_INVALID") {
      state.stepUpFlow = null;
      show("step-up-code", false);
      render();
    } else codeRefused(form);
  });
});

$("totp-setup").addEventListener("click", () =>
  run(async () => {
    const setup = await auth.twoFactorSettings.totpSetup();
    $("totp-secret").textContent = setup.secret;
    $("totp-uri").textContent = setup.otpauthUri;
    $("recovery-codes").replaceChildren(
      ...setup.recoveryCodes.map((code) => element("li", {}, element("code", { textContent: code }))),
    );
    $("totp-confirm").dataset.setupToken = setup.setupToken;
    show("totp-confirm", true);
    const qr = await fetch("/ui/qr", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: setup.otpauthUri }),
    });
    if (qr.ok) $("totp-qr").src = URL.createObjectURL(await qr.blob());
    return setup;
  }, t("done.totpStart")),
);
const recoveryText = () =>
  [...$("recovery-codes").querySelectorAll("code")].map((node) => node.textContent).join("\n");
$("recovery-copy").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText(recoveryText());
    say(t("security.copied"));
  } catch {
    const range = document.createRange();
    range.selectNodeContents($("recovery-codes"));
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
  }
});
$("recovery-download").addEventListener("click", () => {
  const link = element("a", {
    href: URL.createObjectURL(new Blob([`${recoveryText()}\n`], { type: "text/plain" })),
    download: `recovery-codes-${location.hostname}.txt`,
  });
  link.click();
  URL.revokeObjectURL(link.href);
});
onSubmit(
  "totp-confirm",
  (form, { code }) =>
    validate(form) &&
    run(
      () => auth.twoFactorSettings.confirmTotp({ setupToken: form.dataset.setupToken, code: code.trim() }),
      t("done.totpOn"),
      { form, method: "totp" },
    ).then((result) => {
      if (!result) return codeRefused(form);
      form.reset();
      show("totp-confirm", false);
    }),
);
$("totp-disable").addEventListener("click", () =>
  run(() => auth.twoFactorSettings.disableTotp(), t("done.totpOff")).then(() => show("totp-confirm", false)),
);
$("email-send").addEventListener("click", (event) =>
  run(
    () => auth.twoFactorSettings.sendEmailCode().then(() => show("email-enable", true)),
    t("done.codeSent"),
    { button: event.currentTarget },
  ),
);
onSubmit(
  "email-enable",
  (form, { code }) =>
    validate(form) &&
    run(() => auth.twoFactorSettings.enableEmail({ code: code.trim(), method: "email" }), t("done.emailOn"), {
      form,
      method: "email",
    }).then((result) => {
      if (!result) return codeRefused(form);
      form.reset();
      show("email-enable", false);
    }),
);
$("email-disable").addEventListener("click", () =>
  run(() => auth.twoFactorSettings.disableEmail(), t("done.emailOff")),
);
onSubmit("preferred", (form, { method }) =>
  run(() => auth.twoFactorSettings.setPreferredMethod({ method }), t("done.preferred"), { form }),
);
