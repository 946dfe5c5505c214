// Passkeys (WebAuthn) on the page, through `@portcullis/client`'s ceremonies (no WebAuthn library):
// - the sign-in page: "Sign in with a passkey" (no email needed: the browser offers the passkeys
//   it holds for this site) and autofill (conditional UI) on the email field while the view shows;
// - the security settings: the account's passkeys (add with a name, rename, remove; each after the
//   step-up), and "Confirm with a passkey" in the step-up box.
// When the server has passkeys off (its passkey routes answer 404), nothing of this shows.
import {
  isConditionalPasskeyAvailable,
  registerPasskey,
  signInWithPasskey,
  stepUpWithPasskey,
} from "/portcullis-client.js";
import { auth, isApiError } from "../ui/client.js";
import { $, button, element, onSubmit, run, say, show, showError, validate } from "../ui/page.js";
import { loadMe, state } from "../ui/state.js";
import { dateTime, t } from "../ui/strings.js";
import { stepUpDone } from "./security.js";
import { afterSignIn } from "./settings.js";

/** The browser has WebAuthn at all (an http page other than localhost has not). */
const supported = typeof window.PublicKeyCredential === "function" && Boolean(navigator.credentials);

const view = {
  /** False once the server said its passkey routes do not exist (404). */
  serverOn: true,
  /** The signed-in user's passkeys, and whose they are (null: not loaded). */
  list: [],
  loadedFor: null,
  /** The passkey being renamed or asked about before removing (its id), at most one. */
  renaming: null,
  removing: null,
  /** The autofill request while the sign-in view shows: `{ controller, done }`. */
  conditional: null,
  /** True while the button's request runs. */
  busy: false,
  /** The autofill request ended (signed in or refused): not started again until the view is left. */
  conditionalDone: false,
};

/** The browser's own refusals (the user closed the prompt, or it timed out) are no error of the API. */
const cancelled = (error) =>
  error instanceof DOMException && (error.name === "NotAllowedError" || error.name === "AbortError");

/**
 * A ceremony: the API's errors as usual (`run`), the browser's as words: cancelled, or this
 * device already holds a passkey of the account (`InvalidStateError` on adding).
 */
const ceremony = (action, done, options = {}) =>
  run(
    async () => {
      try {
        return await action();
      } catch (error) {
        if (isApiError(error) && error.status === 404 && error.code === "NOT_FOUND") view.serverOn = false;
        if (cancelled(error)) return { cancelled: true };
        if (error instanceof DOMException && error.name === "InvalidStateError") return { exists: true };
        if (error instanceof DOMException || error instanceof TypeError) return { unsupported: true };
        throw error;
      }
    },
    (result) =>
      result.cancelled
        ? t("passkeys.cancelled")
        : result.exists
          ? t("passkeys.exists")
          : result.unsupported
            ? t("passkeys.unsupported")
            : typeof done === "function"
              ? done(result)
              : done,
    options,
  ).then((result) =>
    result && !result.cancelled && !result.exists && !result.unsupported ? result : undefined,
  );

/** Reloads the signed-in user's passkeys (GET /passkeys). */
async function loadPasskeys() {
  const userId = state.me?.id ?? null;
  try {
    view.list = userId ? (await auth.passkeys.list()).passkeys : [];
    view.loadedFor = userId;
  } catch (error) {
    if (isApiError(error) && error.status === 404) view.serverOn = false;
    view.list = [];
    view.loadedFor = userId;
  }
  renderSettings();
}

// ---- Sign-in page ------------------------------------------------------------------------------
const signedIn = (result) => {
  if (!result) return;
  $("login").reset();
  afterSignIn();
};
const rememberMe = () => $("login").querySelector("[name=rememberMe]").checked;

/** Stops the autofill request (leaving the view, or before the button's own request). */
async function stopConditional() {
  const pending = view.conditional;
  view.conditional = null;
  if (!pending) return;
  pending.controller.abort();
  await pending.done;
}

/** Offers the passkeys of this site in the email field's autofill while the sign-in view shows. */
async function startConditional() {
  if (view.conditional || view.conditionalDone || !(await isConditionalPasskeyAvailable())) return;
  if (view.conditional || view.busy || location.pathname !== "/login" || state.me || state.pendingLogin)
    return;
  const controller = new AbortController();
  const pending = { controller, done: Promise.resolve() };
  view.conditional = pending;
  pending.done = signInWithPasskey(auth, {
    mediation: "conditional",
    signal: controller.signal,
    // Read when the user picks a passkey: the box may change while the request waits.
    rememberMe,
  }).then(
    async (result) => {
      if (view.conditional === pending) view.conditional = null;
      // One autofill sign-in per visit of the view: never a loop of them.
      view.conditionalDone = true;
      await loadMe();
      say(t("done.login"));
      signedIn(result);
    },
    (error) => {
      if (view.conditional === pending) view.conditional = null;
      if (controller.signal.aborted) return;
      view.conditionalDone = true;
      if (isApiError(error) && error.status === 404) {
        view.serverOn = false;
        show("passkey-sign-in", false);
      } else if (!cancelled(error)) showError(error);
    },
  );
}

$("passkey-sign-in").addEventListener("click", async (event) => {
  const trigger = event.currentTarget;
  // The button's own request: no autofill request meanwhile (one WebAuthn request at a time).
  view.busy = true;
  await stopConditional();
  const result = await ceremony(
    async () => {
      try {
        return await signInWithPasskey(auth, { rememberMe: rememberMe() });
      } finally {
        // Before `run` renders again: a refused sign-in starts the autofill request anew.
        view.busy = false;
      }
    },
    t("done.login"),
    { button: trigger },
  );
  signedIn(result);
});

// ---- Security settings -------------------------------------------------------------------------
$("step-up-passkey").addEventListener("click", (event) =>
  ceremony(() => stepUpWithPasskey(auth), stepUpDone, { button: event.currentTarget }),
);

onSubmit("passkey-add", (form, { name }) =>
  ceremony(
    async () => {
      const added = await registerPasskey(auth, name?.trim() ? { name: name.trim() } : {});
      await loadPasskeys();
      return added;
    },
    (added) => t("done.passkeyAdded", { name: added.name }),
    { form, button: form.querySelector("button[type=submit]") },
  ).then((added) => {
    if (added) form.reset();
  }),
);

/** One passkey: its name and times, and rename and remove (each asked in the row itself). */
function passkeyItem(passkey) {
  const details = t("passkeys.details", {
    created: dateTime(passkey.createdAt),
    used: passkey.lastUsedAt ? dateTime(passkey.lastUsedAt) : t("passkeys.neverUsed"),
  });
  const about = element(
    "div",
    {},
    element("strong", { className: "passkey-name", textContent: passkey.name }),
    passkey.backedUp ? element("span", { className: "badge", textContent: t("passkeys.synced") }) : "",
    element("br"),
    element("small", { className: "muted", textContent: details }),
  );
  const done = async () => {
    view.renaming = null;
    view.removing = null;
    await loadPasskeys();
  };
  if (view.renaming === passkey.id) {
    const input = element("input", { name: "name", value: passkey.name, required: true, maxLength: 100 });
    const form = element(
      "form",
      { className: "passkey-rename", noValidate: true },
      element("label", {}, element("span", { textContent: t("passkeys.newName") }), " ", input),
      element(
        "div",
        { className: "row" },
        element("button", { type: "submit", textContent: t("passkeys.save") }),
        button(t("passkeys.cancel"), () => done(), "secondary"),
      ),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!validate(form)) return;
      run(() => auth.passkeys.rename(passkey.id, input.value.trim()), t("done.passkeyRenamed"), {
        form,
      }).then((result) => result && done());
    });
    queueMicrotask(() => input.focus());
    return element("li", { className: "passkey" }, form);
  }
  if (view.removing === passkey.id) {
    return element(
      "li",
      { className: "passkey" },
      element("p", { textContent: t("passkeys.confirmRemove", { name: passkey.name }) }),
      element(
        "div",
        { className: "row" },
        button(
          t("passkeys.yesRemove"),
          () => run(() => auth.passkeys.delete(passkey.id), t("done.passkeyRemoved")).then(() => done()),
          "danger passkey-remove-yes",
        ),
        button(t("passkeys.cancel"), () => done(), "secondary"),
      ),
    );
  }
  const ask = (key) => () => {
    view.renaming = key === "renaming" ? passkey.id : null;
    view.removing = key === "removing" ? passkey.id : null;
    renderSettings();
  };
  return element(
    "li",
    { className: "passkey" },
    about,
    element(
      "div",
      { className: "row" },
      button(t("passkeys.rename"), ask("renaming"), "secondary passkey-rename"),
      button(t("passkeys.remove"), ask("removing"), "danger passkey-remove"),
    ),
  );
}

/** The passkeys card and the step-up box's passkey button. */
function renderSettings() {
  const on = view.serverOn && Boolean(state.me);
  show("passkeys-card", on);
  show("step-up-passkey", on && supported && view.list.length > 0);
  show("passkey-add", supported);
  $("passkey-list").replaceChildren(...view.list.map(passkeyItem));
  show("passkeys-empty", view.list.length === 0);
}

/** Registered with `addView`: called on every render with the current view. */
export function renderPasskeys(current) {
  show("passkey-sign-in", supported && view.serverOn);
  if (current === "/login" && supported && view.serverOn) void startConditional();
  else {
    view.conditionalDone = false;
    if (view.conditional) void stopConditional();
  }
  if (!state.me) {
    view.list = [];
    view.loadedFor = null;
    view.renaming = null;
    view.removing = null;
  } else if (current === "/settings/security" && view.loadedFor !== state.me.id) {
    view.loadedFor = state.me.id;
    void loadPasskeys();
  }
  renderSettings();
}
