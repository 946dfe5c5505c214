// The words of trusted browsers (the second step's checkbox, views/trusted-browsers.js) in English
// and German, merged into the UI's strings when first imported.
import { STRINGS } from "./strings.js";

Object.assign(STRINGS.en, {
  "twoFactor.trustBrowser": "Trust this browser: no code here next time",
  "trusted.title": "Trusted browsers",
  "trusted.lead":
    "These browsers sign in with your password alone. The trust ends when you forget them here, change your password or your second factor, or sign out everywhere.",
  "trusted.none": "No browser is trusted.",
  "trusted.line": "{browser} on {os}",
  "trusted.times": "Trusted {since} · last used {used}",
  "trusted.forget": "Forget",
  "trusted.forgetNamed": "Forget {browser}",
  "trusted.forgetAll": "Forget all browsers",
  "done.forgotBrowser": "Browser forgotten: it asks for the second step again.",
  "done.forgotBrowsers": "Every browser forgotten: each asks for the second step again.",
});

Object.assign(STRINGS.de, {
  "twoFactor.trustBrowser": "Diesem Browser vertrauen: hier beim nächsten Mal ohne Code",
  "trusted.title": "Vertrauenswürdige Browser",
  "trusted.lead":
    "Diese Browser melden sich nur mit deinem Passwort an. Das Vertrauen endet, wenn du sie hier vergisst, dein Passwort oder deinen zweiten Faktor änderst oder dich überall abmeldest.",
  "trusted.none": "Keinem Browser wird vertraut.",
  "trusted.line": "{browser} auf {os}",
  "trusted.times": "Vertraut seit {since} · zuletzt verwendet {used}",
  "trusted.forget": "Vergessen",
  "trusted.forgetNamed": "{browser} vergessen",
  "trusted.forgetAll": "Alle Browser vergessen",
  "done.forgotBrowser": "Browser vergessen: er fragt wieder nach dem zweiten Schritt.",
  "done.forgotBrowsers": "Alle Browser vergessen: jeder fragt wieder nach dem zweiten Schritt.",
});
