// The CAPTCHA widget (CAPTCHA_PROVIDER with CAPTCHA_SITE_KEY): loaded only when `GET /ui/config`
// names a provider and site key. It draws the provider's widget in the forms that send mail or
// create accounts (sign-in, sign-up, forgotten password, verification resend) and hands the
// token it produced to the next call of a route that wants one, as `X-Captcha-Token`. A token
// is good once, so every widget starts again after a call took it.
import { currentLanguage } from "./strings.js";

/** Each provider's script (explicit rendering, `onload` when ready) and its global. */
const PROVIDERS = {
  turnstile: { src: "https://challenges.cloudflare.com/turnstile/v0/api.js", global: "turnstile" },
  hcaptcha: { src: "https://js.hcaptcha.com/1/api.js", global: "hcaptcha" },
  recaptcha: { src: "https://www.google.com/recaptcha/api.js", global: "grecaptcha" },
};
/** The routes `captcha.on` protects in the examples (login asks only after failures). */
const PROTECTED =
  /\/api\/auth\/(register|login|password\/reset-request|email-sign-in\/request|email\/verification\/send)$/;
/** Where widgets go: before the submit button of these forms, and before the resend button. */
const PLACES = [
  "#login button[type=submit]",
  "#signup button[type=submit]",
  "#forgot-password button[type=submit]",
  "#resend-verification",
];

let token = null;
const widgets = [];

/** Loads the provider's script; resolves with its global once it is ready. */
function loadProvider({ src, global }) {
  return new Promise((resolve, reject) => {
    const callback = `portcullisCaptcha${Date.now()}`;
    window[callback] = () => resolve(window[global]);
    const script = document.createElement("script");
    const language = currentLanguage();
    script.src = `${src}?render=explicit&onload=${callback}&hl=${encodeURIComponent(language)}`;
    script.async = true;
    script.onerror = () => reject(new Error("the CAPTCHA script did not load"));
    document.head.append(script);
  });
}

/** Draws one widget before `anchor`. */
function draw(api, siteKey, anchor) {
  const box = document.createElement("div");
  box.className = "captcha-widget";
  anchor.before(box);
  const id = api.render(box, {
    sitekey: siteKey,
    callback: (value) => {
      token = value;
    },
    "expired-callback": () => {
      token = null;
    },
  });
  widgets.push({ api, id });
}

/** Sends the widget's token with the calls that want one; the token is then spent. */
function attachTokens() {
  const original = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    if (token === null || !PROTECTED.test(new URL(url, location.href).pathname)) return original(input, init);
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set("X-Captcha-Token", token);
    token = null;
    for (const { api, id } of widgets) api.reset(id);
    return original(input, { ...init, headers });
  };
}

async function start() {
  const { captcha } = await (await fetch("/ui/config")).json();
  const provider = captcha && PROVIDERS[captcha.provider];
  if (!provider || !captcha.siteKey) return;
  attachTokens();
  const api = await loadProvider(provider);
  for (const selector of PLACES) {
    const anchor = document.querySelector(selector);
    if (anchor) draw(api, captcha.siteKey, anchor);
  }
}

start().catch((error) => console.warn("CAPTCHA widget:", error));
