// The example UI: plain fetch calls to the Portcullis routes; the browser keeps the HttpOnly
// cookies (access, refresh, 2FA and step-up tokens), so no token is ever handled here.
const api = async (method, path, body) => {
  const response = await fetch(`/api/auth${path}`, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const code = response.headers.get("auth-error-code");
  const data = response.status === 304 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(data.message ?? code ?? response.statusText), { code });
  return data;
};

const $ = (id) => document.getElementById(id);
const say = (text) => {
  $("status").textContent = text;
};
const fields = (form) => Object.fromEntries(new FormData(form).entries());
const show = (id, visible) => {
  $(id).hidden = !visible;
};
const query = new URLSearchParams(location.search);
const token = query.get("token");
/** The configured identity providers (`GET /oauth/providers`), `{ name, displayName }` each. */
let providers = [];
const button = (text, onClick, className) => {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = text;
  if (className) element.className = className;
  element.addEventListener("click", onClick);
  return element;
};
/** Sign-in and step-up at a provider are browser navigations: it redirects back to the callback. */
const authorizeUrl = (name, extra = "") =>
  `/api/auth/oauth/${encodeURIComponent(name)}/authorize?returnTo=%2F${extra}`;

function renderProviders(me) {
  const linked = new Set(me?.identityProviders ?? []);
  $("linked-providers").replaceChildren(
    ...[...(me?.hasPassword ? ["Password"] : []), ...linked].map((method) => {
      const item = document.createElement("li");
      item.textContent = method;
      return item;
    }),
  );
  // A password-less account confirms changes by signing in at its provider again.
  const stepUpWith = providers.filter((provider) => !me?.hasPassword && linked.has(provider.name));
  $("step-up-providers").replaceChildren(
    ...stepUpWith.map((provider) =>
      button(`Confirm with ${provider.displayName}`, () => {
        location.href = authorizeUrl(provider.name, "&stepUp=1");
      }),
    ),
  );
  show("step-up-providers", stepUpWith.length > 0);
  show("step-up", me?.hasPassword !== false && $("settings").hidden);
  $("provider-settings").replaceChildren(
    ...providers.map((provider) =>
      linked.has(provider.name)
        ? button(
            `Unlink ${provider.displayName}`,
            () =>
              run(
                () => api("DELETE", `/oauth/${encodeURIComponent(provider.name)}`),
                `${provider.displayName} unlinked`,
              ),
            "danger",
          )
        : button(`Link ${provider.displayName}`, () =>
            run(async () => {
              const { authorizationUrl } = await api(
                "POST",
                `/oauth/${encodeURIComponent(provider.name)}/link`,
                { returnTo: "/" },
              );
              location.href = authorizationUrl;
            }),
          ),
    ),
  );
}

async function refreshView() {
  try {
    const me = await api("GET", "/me");
    renderProviders(me);
    $("me-email").textContent = me.email;
    $("me").textContent = JSON.stringify(me, null, 2);
    const { sessions } = await api("GET", "/sessions");
    $("sessions").replaceChildren(
      ...sessions.map((session) => {
        const item = document.createElement("li");
        item.textContent = `${session.browser ?? "?"} on ${session.os ?? "?"} from ${session.ip ?? "?"}, active ${session.lastActiveAt}${session.current ? " (this one)" : ""} `;
        const revoke = document.createElement("button");
        revoke.type = "button";
        revoke.textContent = "Revoke";
        revoke.addEventListener("click", () =>
          run(() => api("DELETE", `/sessions/${encodeURIComponent(session.id)}`), "Session revoked"),
        );
        item.append(revoke);
        return item;
      }),
    );
    show("signed-in", true);
    show("signed-out", false);
    show("two-factor", false);
  } catch {
    show("signed-in", false);
    show("signed-out", $("two-factor").hidden);
  }
}

async function run(action, done) {
  try {
    const result = await action();
    if (done) say(typeof done === "function" ? done(result) : done);
  } catch (error) {
    say(`${error.code ?? "ERROR"}: ${error.message}`);
  }
  await refreshView();
}

function askSecondFactor(result) {
  $("two-factor-methods").textContent = result.twoFactorMethods.join(", ");
  show("two-factor", true);
  show("signed-out", false);
  return `Enter your ${result.preferredTwoFactorMethod === "email" ? "emailed" : "authenticator"} code`;
}

$("signup").addEventListener("submit", (event) => {
  event.preventDefault();
  const { email, password, name } = fields(event.target);
  run(
    () => api("POST", "/register", { email, password, ...(name ? { name } : {}) }),
    "Account created (if the address was new). Check your email, then log in.",
  );
});
$("login").addEventListener("submit", (event) => {
  event.preventDefault();
  run(
    () => api("POST", "/login", fields(event.target)),
    (result) => (result.twoFactorRequired ? askSecondFactor(result) : "Logged in"),
  );
});
$("forgot-password").addEventListener("submit", (event) => {
  event.preventDefault();
  run(
    () => api("POST", "/password/reset-request", fields(event.target)),
    "If the address has an account, a reset link is on its way.",
  );
});
$("two-factor-code").addEventListener("submit", (event) => {
  event.preventDefault();
  const { code, method } = fields(event.target);
  run(
    () =>
      api("POST", "/2fa/login", { code, ...(method ? { method } : {}) }).then(() =>
        show("two-factor", false),
      ),
    "Logged in",
  );
});
$("two-factor-recover").addEventListener("submit", (event) => {
  event.preventDefault();
  run(
    () => api("POST", "/2fa/recover", fields(event.target)).then(() => show("two-factor", false)),
    "Logged in with a recovery code",
  );
});
$("two-factor-email").addEventListener("click", () =>
  run(() => api("POST", "/2fa/email/send"), "A code is on its way"),
);
$("reset-password").addEventListener("submit", (event) => {
  event.preventDefault();
  run(
    () =>
      api("POST", `/password/reset?token=${encodeURIComponent(token ?? "")}`, fields(event.target)).then(() =>
        show("reset-password", false),
      ),
    "Password changed: every session was signed out. Log in with the new password.",
  );
});

$("resend-verification").addEventListener("click", () =>
  run(() => api("POST", "/email/verification/send"), "Verification email sent"),
);
$("refresh").addEventListener("click", () => run(() => api("POST", "/refresh"), "Tokens refreshed"));
$("logout").addEventListener("click", () => run(() => api("POST", "/logout"), "Logged out"));
$("revoke-all").addEventListener("click", () =>
  run(() => api("DELETE", "/sessions"), "Signed out everywhere"),
);

const stepUpDone = () => {
  show("step-up", false);
  show("step-up-code", false);
  show("settings", true);
  return "Confirmed: you can change security settings for a few minutes";
};
$("step-up").addEventListener("submit", (event) => {
  event.preventDefault();
  run(
    () => api("POST", "/step-up", fields(event.target)),
    (result) => {
      if (!result.twoFactorRequired) return stepUpDone();
      show("step-up-code", true);
      return "Now enter your second-factor code";
    },
  );
});
$("step-up-code").addEventListener("submit", (event) => {
  event.preventDefault();
  run(() => api("POST", "/2fa/step-up", fields(event.target)), stepUpDone);
});
$("totp-setup").addEventListener("click", () =>
  run(async () => {
    const setup = await api("GET", "/2fa/totp/setup");
    $("totp-secret").textContent = setup.secret;
    $("totp-uri").textContent = setup.otpauthUri;
    $("recovery-codes").textContent = setup.recoveryCodes.join(" ");
    $("totp-confirm").dataset.setupToken = setup.setupToken;
    show("totp-confirm", true);
  }, "Add the secret to your authenticator app, then enter its code"),
);
$("totp-confirm").addEventListener("submit", (event) => {
  event.preventDefault();
  const { code } = fields(event.target);
  run(
    () =>
      api("POST", "/2fa/totp/setup", { setupToken: event.target.dataset.setupToken, code }).then(() =>
        show("totp-confirm", false),
      ),
    "Authenticator app turned on",
  );
});
$("totp-disable").addEventListener("click", () =>
  run(() => api("DELETE", "/2fa/totp"), "Authenticator app turned off"),
);
$("email-send").addEventListener("click", () =>
  run(() => api("POST", "/2fa/email/send").then(() => show("email-enable", true)), "A code is on its way"),
);
$("email-enable").addEventListener("submit", (event) => {
  event.preventDefault();
  run(
    () => api("POST", "/2fa/email/enable", fields(event.target)).then(() => show("email-enable", false)),
    "Email codes turned on",
  );
});
$("email-disable").addEventListener("click", () =>
  run(() => api("DELETE", "/2fa/email"), "Email codes turned off"),
);

if (location.pathname === "/verify-email" && token) {
  show("verify-email", true);
  api("POST", `/email/verification?token=${encodeURIComponent(token)}`).then(
    () => {
      $("verify-result").textContent = "Your email address is verified.";
    },
    (error) => {
      $("verify-result").textContent =
        error.code === "EMAIL_ALREADY_VERIFIED"
          ? "This address was already verified."
          : `${error.code}: ${error.message}`;
    },
  );
}
if (location.pathname === "/reset-password" && token) show("reset-password", true);

// Back from an identity provider: the callback redirected here with what happened.
if (query.has("error")) say(`${query.get("error")}: the sign-in with the identity provider did not work`);
if (query.get("linked")) say(`${query.get("linked")} is linked to your account`);
if (query.get("stepUp") === "1") say(stepUpDone());
if (query.get("twoFactor") === "login") {
  const twoFactorMethods = (query.get("methods") ?? "").split(",").filter(Boolean);
  say(askSecondFactor({ twoFactorMethods, preferredTwoFactorMethod: twoFactorMethods[0] }));
}
if (query.get("twoFactor") === "step-up") {
  show("step-up-code", true);
  say("Now enter your second-factor code");
}
if (["error", "linked", "stepUp", "twoFactor"].some((name) => query.has(name))) {
  history.replaceState(null, "", location.pathname);
}
api("GET", "/oauth/providers").then(
  (result) => {
    providers = result.providers;
    $("provider-buttons").replaceChildren(
      ...providers.map((provider) => {
        const link = document.createElement("a");
        link.className = "button";
        link.href = authorizeUrl(provider.name);
        link.textContent = `Sign in with ${provider.displayName}`;
        return link;
      }),
    );
    show("providers", providers.length > 0);
    return refreshView();
  },
  () => refreshView(),
);
