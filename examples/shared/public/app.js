// The example UI: a small single-page app over the Portcullis HTTP routes. The browser keeps the
// HttpOnly cookies (access, refresh, 2FA and step-up tokens), so no token is ever handled here.

// ---- Strings (en, de) -------------------------------------------------------------------------
const STRINGS = {
  en: {
    "nav.login": "Sign in",
    "nav.signup": "Sign up",
    "nav.account": "Account",
    "nav.security": "Security",
    "nav.activity": "Activity",
    "activity.title": "Activity",
    "activity.lead": "Security events of your account, newest first: sign-ins, failed attempts and changes.",
    "activity.empty": "Nothing yet.",
    "activity.more": "Show older events",
    "activity.line": "{time} · {browser} on {os} · {ip}",
    "activity.with": "{event} ({detail})",
    "event.login.succeeded": "Signed in",
    "event.login.failed": "Failed sign-in",
    "event.login.throttled": "Sign-ins paused after too many failed attempts",
    "event.two_factor.failed": "Wrong second-factor code",
    "event.two_factor.throttled": "Second-factor codes paused after too many wrong ones",
    "event.two_factor.enabled": "Two-factor method turned on",
    "event.two_factor.disabled": "Two-factor method turned off",
    "event.step_up.failed": "Wrong password while confirming a change",
    "event.password_reset.requested": "Password reset requested",
    "event.password_reset.completed": "Password reset",
    "event.password.set": "Password set by an administrator",
    "event.email.verified": "Email address verified",
    "event.identity.linked": "Identity provider linked",
    "event.identity.unlinked": "Identity provider unlinked",
    "event.session.revoked": "Signed out",
    "event.session.revoked_others": "Other sessions signed out",
    "event.session.revoked_all": "Signed out everywhere",
    "event.session.revoked_by_user": "A session was signed out",
    "event.refresh_token.reused": "A session was ended: its sign-in token was used twice",
    "event.user.created": "Account created",
    "reason.password": "password",
    "reason.recovery_code": "recovery code",
    "reason.api": "by the app",
    "reason.wrong_password": "wrong password",
    "reason.no_password": "no password set",
    "reason.provider": "with {name}",
    "nav.logout": "Sign out",
    "field.email": "Email",
    "field.password": "Password",
    "field.name": "Name (optional)",
    "field.newPassword": "New password",
    "field.code": "Code",
    "field.recoveryCode": "Recovery code",
    "login.title": "Sign in",
    "login.submit": "Sign in",
    "login.forgot": "Forgot your password?",
    "login.rememberMe": "Keep me signed in",
    "login.noAccount": "Create an account",
    "login.providers": "Or sign in with an identity provider",
    "login.providerButton": "Sign in with {name}",
    "twoFactor.title": "Second step",
    "twoFactor.submit": "Continue",
    "twoFactor.emailMe": "Email me a code",
    "twoFactor.recoveryTitle": "Lost your device?",
    "twoFactor.recover": "Use a recovery code",
    "twoFactor.hint.totp": "Enter the 6-digit code from your authenticator app.",
    "twoFactor.hint.email": "Press “Email me a code”, then enter the code from the email.",
    "twoFactor.hint.emailSent":
      "We emailed you a code: enter it here. Nothing arrived? “Email me a code” sends a new one.",
    "method.totp": "Authenticator app",
    "method.email": "Code by email",
    "signup.title": "Create an account",
    "signup.submit": "Create account",
    "signup.haveAccount": "Already have an account? Sign in",
    "forgot.title": "Forgot your password?",
    "forgot.lead": "Enter your address and we email you a link to choose a new password.",
    "forgot.submit": "Email me a reset link",
    "reset.title": "Choose a new password",
    "reset.submit": "Set password",
    "reset.noToken": "This page needs the link from the password reset email.",
    "verify.title": "Email verification",
    "verify.checking": "Checking your link…",
    "verify.continue": "Continue",
    "verify.done": "Your email address is verified.",
    "verify.already": "This address was already verified. Nothing more to do.",
    "verify.noToken": "This page needs the link from the verification email.",
    "account.title": "Your account",
    "account.resend": "Resend verification email",
    "account.security": "Security settings",
    "account.sessions": "Sessions",
    "account.revokeAll": "Sign out everywhere",
    "account.revokeOthers": "Sign out other sessions",
    "account.methods": "Sign-in methods",
    "account.revoke": "Revoke",
    "account.thisDevice": "This device",
    "account.sessionLine": "{browser} on {os} · {ip}",
    "account.started": "signed in {time}",
    "account.active": "last active {time}",
    "account.unknown": "unknown",
    "account.passwordMethod": "Password",
    "me.name": "Name",
    "me.emailVerified": "Email verified",
    "me.twoFactor": "Two-factor",
    "me.preferred": "Asked first",
    "me.createdAt": "Member since",
    "me.id": "User ID",
    yes: "Yes",
    no: "No",
    none: "Off",
    "security.title": "Security settings",
    "security.confirmTitle": "Confirm it is you",
    "security.confirmLead": "Changes need your password first (and your second factor, when 2FA is on).",
    "security.confirm": "Confirm password",
    "security.confirmCode": "Confirm code",
    "security.confirmWith": "Confirm with {name}",
    "security.totpTitle": "Authenticator app",
    "security.totpSetup": "Set up an authenticator app",
    "security.totpAgain": "Set up again (new secret and codes)",
    "security.totpOff": "Turn off the authenticator app",
    "security.totpOn": "On: sign-ins ask for a code from your app.",
    "security.totpIsOff": "Off.",
    "security.scan": "Scan this code with your authenticator app, or type the secret.",
    "security.secret": "Secret",
    "security.uri": "otpauth URI",
    "security.recoveryTitle": "Recovery codes",
    "security.recoveryLead":
      "Each works once if you lose your device. They are shown only now: keep them somewhere safe.",
    "security.copy": "Copy",
    "security.download": "Download",
    "security.copied": "Recovery codes copied",
    "security.appCode": "Code from the app",
    "security.turnOn": "Turn on",
    "security.emailTitle": "Codes by email",
    "security.emailSend": "Email me a code to turn this on",
    "security.emailOff": "Turn off codes by email",
    "security.emailCode": "Code from the email",
    "security.emailOn": "Turn on codes by email",
    "security.emailIsOn": "On: sign-ins can send a code to {email}.",
    "security.emailIsOff": "Off.",
    "security.preferredTitle": "Method asked first",
    "security.preferredSave": "Save",
    "security.providersTitle": "Identity providers",
    "security.link": "Link {name}",
    "security.unlink": "Unlink {name}",
    "footer.lead":
      "Every button calls the library's HTTP routes under /api/auth; tokens live in HttpOnly cookies.",
    "footer.outbox": "Dev outbox",
    "done.signup":
      "Account created (if the address was new). Check your email for the verification link, then sign in.",
    "done.login": "Signed in",
    "done.recovered": "Signed in with a recovery code. It cannot be used again.",
    "done.resetRequested": "If the address has an account, a reset link is on its way.",
    "done.reset": "Password changed: every session was signed out. Sign in with the new password.",
    "done.verificationSent": "Verification email sent",
    "done.logout": "Signed out",
    "done.revoked": "Session revoked",
    "done.revokedAll": "Signed out everywhere",
    "done.revokedOthers": "Other sessions signed out ({count})",
    "done.stepUp": "Confirmed: you can change security settings for a few minutes.",
    "done.stepUpCode": "Now enter your second-factor code.",
    "done.totpStart": "Scan the QR code, keep the recovery codes, then enter the app's code.",
    "done.totpOn": "Authenticator app turned on",
    "done.totpOff": "Authenticator app turned off",
    "done.codeSent": "A code is on its way to your inbox",
    "done.emailOn": "Codes by email turned on",
    "done.emailOff": "Codes by email turned off",
    "done.preferred": "Saved",
    "done.unlinked": "{name} unlinked",
    "done.linked": "{name} is linked to your account",
    "error.provider": "The sign-in with the identity provider did not work. Please try again.",
    "error.signInFirst": "Please sign in to continue.",
    "error.network": "The server cannot be reached. Check your connection and try again.",
    "error.fields": "Please check the marked fields.",
    "error.reusedCode":
      "Each code works once: if you just used this one, wait for the next code in your app (a new one appears every 30 seconds).",
    "error.cooldown": "{message} Try again in {seconds} s.",
    "error.cooldownOver": "You can try again now.",
    "code.INVALID_CREDENTIALS": "The email address or password is wrong.",
    "code.WRONG_TWO_FACTOR_CODE": "That code is not right.",
    "code.EMAIL_NOT_VERIFIED": "Please verify your email address first: use the link in the email we sent.",
    "code.STEP_UP_REQUIRED": "Please confirm your password again to change this setting.",
    "code.PASSWORD_POLICY_VIOLATION": "Choose a longer or less common password.",
    "code.EMAIL_COOLDOWN_ACTIVE": "An email was sent a moment ago.",
    "code.LOGIN_THROTTLED": "Too many failed sign-in attempts.",
    "code.RATE_LIMITED": "Too many requests from your network.",
    "code.TWO_FACTOR_THROTTLED": "Too many wrong codes.",
    "code.TWO_FACTOR_TOKEN_INVALID": "The sign-in took too long. Please sign in again.",
    "code.AUTHENTICATION_REQUIRED": "Please sign in to continue.",
    "code.ACCESS_TOKEN_EXPIRED": "Your session has expired. Please sign in again.",
    "code.EMAIL_ALREADY_VERIFIED": "This address was already verified. Nothing more to do.",
    "twoFactor.back": "Back to sign in",
    "twoFactor.resumed": "Your sign-in is waiting for its second step.",
    "signedOut.elsewhere": "You were signed out (this session was ended elsewhere). Please sign in again.",
    "stepUp.wrongPassword": "That password is not right. Enter the password of this account.",
    "confirm.revoke": "Sign out the session “{session}”? That browser has to sign in again.",
    "confirm.revokeAll": "Sign out every session, this one included?",
    "confirm.revokeOthers": "Sign out every other session? Only this browser stays signed in.",
    "confirm.yes.revoke": "Yes, revoke",
    "confirm.yes.revokeAll": "Yes, sign out everywhere",
    "confirm.yes.revokeOthers": "Yes, sign out the others",
    "confirm.cancel": "Cancel",
    "invalid.email.required": "Enter your email address.",
    "invalid.email.format": "Enter an email address like name@example.com.",
    "invalid.email": "Enter a valid email address.",
    "invalid.password.required": "Enter your password.",
    "invalid.password": "Choose a password that meets the rules.",
    "invalid.newPassword.required": "Enter a new password.",
    "invalid.newPassword": "Choose a password that meets the rules.",
    "invalid.name": "Enter a shorter name.",
    "invalid.code.required": "Enter the code.",
    "invalid.code": "Enter the code as it was shown or sent.",
    "error.unexpected": "Something went wrong (HTTP {status}). Please try again.",
  },
  de: {
    "nav.login": "Anmelden",
    "nav.signup": "Registrieren",
    "nav.account": "Konto",
    "nav.security": "Sicherheit",
    "nav.activity": "Aktivität",
    "activity.title": "Aktivität",
    "activity.lead":
      "Sicherheitsereignisse deines Kontos, neueste zuerst: Anmeldungen, Fehlversuche und Änderungen.",
    "activity.empty": "Noch nichts.",
    "activity.more": "Ältere Ereignisse zeigen",
    "activity.line": "{time} · {browser} auf {os} · {ip}",
    "activity.with": "{event} ({detail})",
    "event.login.succeeded": "Angemeldet",
    "event.login.failed": "Fehlgeschlagene Anmeldung",
    "event.login.throttled": "Anmeldungen nach zu vielen Fehlversuchen pausiert",
    "event.two_factor.failed": "Falscher Code für den zweiten Faktor",
    "event.two_factor.throttled": "Codes nach zu vielen falschen pausiert",
    "event.two_factor.enabled": "Zwei-Faktor-Methode eingeschaltet",
    "event.two_factor.disabled": "Zwei-Faktor-Methode ausgeschaltet",
    "event.step_up.failed": "Falsches Passwort beim Bestätigen einer Änderung",
    "event.password_reset.requested": "Zurücksetzen des Passworts angefordert",
    "event.password_reset.completed": "Passwort zurückgesetzt",
    "event.password.set": "Passwort von einem Administrator gesetzt",
    "event.email.verified": "E-Mail-Adresse bestätigt",
    "event.identity.linked": "Identitätsanbieter verknüpft",
    "event.identity.unlinked": "Identitätsanbieter getrennt",
    "event.session.revoked": "Abgemeldet",
    "event.session.revoked_others": "Andere Sitzungen abgemeldet",
    "event.session.revoked_all": "Überall abgemeldet",
    "event.session.revoked_by_user": "Eine Sitzung wurde beendet",
    "event.refresh_token.reused": "Eine Sitzung wurde beendet: ihr Anmelde-Token wurde doppelt benutzt",
    "event.user.created": "Konto erstellt",
    "reason.password": "Passwort",
    "reason.recovery_code": "Wiederherstellungscode",
    "reason.api": "durch die App",
    "reason.wrong_password": "falsches Passwort",
    "reason.no_password": "kein Passwort gesetzt",
    "reason.provider": "mit {name}",
    "nav.logout": "Abmelden",
    "field.email": "E-Mail",
    "field.password": "Passwort",
    "field.name": "Name (optional)",
    "field.newPassword": "Neues Passwort",
    "field.code": "Code",
    "field.recoveryCode": "Wiederherstellungscode",
    "login.title": "Anmelden",
    "login.submit": "Anmelden",
    "login.forgot": "Passwort vergessen?",
    "login.rememberMe": "Angemeldet bleiben",
    "login.noAccount": "Konto erstellen",
    "login.providers": "Oder mit einem Identitätsanbieter anmelden",
    "login.providerButton": "Mit {name} anmelden",
    "twoFactor.title": "Zweiter Schritt",
    "twoFactor.submit": "Weiter",
    "twoFactor.emailMe": "Code per E-Mail senden",
    "twoFactor.recoveryTitle": "Gerät verloren?",
    "twoFactor.recover": "Wiederherstellungscode verwenden",
    "twoFactor.hint.totp": "Gib den 6-stelligen Code aus deiner Authenticator-App ein.",
    "twoFactor.hint.email": "Tippe auf „Code per E-Mail senden“ und gib dann den Code aus der E-Mail ein.",
    "twoFactor.hint.emailSent":
      "Wir haben dir einen Code per E-Mail geschickt: gib ihn hier ein. Nichts angekommen? „Code per E-Mail senden“ schickt einen neuen.",
    "method.totp": "Authenticator-App",
    "method.email": "Code per E-Mail",
    "signup.title": "Konto erstellen",
    "signup.submit": "Konto erstellen",
    "signup.haveAccount": "Schon ein Konto? Anmelden",
    "forgot.title": "Passwort vergessen?",
    "forgot.lead": "Gib deine Adresse ein, wir senden dir einen Link für ein neues Passwort.",
    "forgot.submit": "Link zum Zurücksetzen senden",
    "reset.title": "Neues Passwort wählen",
    "reset.submit": "Passwort setzen",
    "reset.noToken": "Diese Seite braucht den Link aus der E-Mail zum Zurücksetzen.",
    "verify.title": "E-Mail-Bestätigung",
    "verify.checking": "Link wird geprüft …",
    "verify.continue": "Weiter",
    "verify.done": "Deine E-Mail-Adresse ist bestätigt.",
    "verify.already": "Diese Adresse war schon bestätigt. Es ist nichts weiter zu tun.",
    "verify.noToken": "Diese Seite braucht den Link aus der Bestätigungs-E-Mail.",
    "account.title": "Dein Konto",
    "account.resend": "Bestätigungs-E-Mail erneut senden",
    "account.security": "Sicherheitseinstellungen",
    "account.sessions": "Sitzungen",
    "account.revokeAll": "Überall abmelden",
    "account.revokeOthers": "Andere Sitzungen abmelden",
    "account.methods": "Anmeldemethoden",
    "account.revoke": "Beenden",
    "account.thisDevice": "Dieses Gerät",
    "account.sessionLine": "{browser} auf {os} · {ip}",
    "account.started": "angemeldet {time}",
    "account.active": "zuletzt aktiv {time}",
    "account.unknown": "unbekannt",
    "account.passwordMethod": "Passwort",
    "me.name": "Name",
    "me.emailVerified": "E-Mail bestätigt",
    "me.twoFactor": "Zwei-Faktor",
    "me.preferred": "Zuerst gefragt",
    "me.createdAt": "Mitglied seit",
    "me.id": "Benutzer-ID",
    yes: "Ja",
    no: "Nein",
    none: "Aus",
    "security.title": "Sicherheitseinstellungen",
    "security.confirmTitle": "Bestätige, dass du es bist",
    "security.confirmLead":
      "Änderungen brauchen zuerst dein Passwort (und den zweiten Faktor, wenn 2FA an ist).",
    "security.confirm": "Passwort bestätigen",
    "security.confirmCode": "Code bestätigen",
    "security.confirmWith": "Mit {name} bestätigen",
    "security.totpTitle": "Authenticator-App",
    "security.totpSetup": "Authenticator-App einrichten",
    "security.totpAgain": "Neu einrichten (neues Geheimnis und neue Codes)",
    "security.totpOff": "Authenticator-App ausschalten",
    "security.totpOn": "An: Anmeldungen fragen nach einem Code aus deiner App.",
    "security.totpIsOff": "Aus.",
    "security.scan": "Scanne diesen Code mit deiner Authenticator-App oder tippe das Geheimnis ein.",
    "security.secret": "Geheimnis",
    "security.uri": "otpauth-URI",
    "security.recoveryTitle": "Wiederherstellungscodes",
    "security.recoveryLead":
      "Jeder hilft einmal, falls du dein Gerät verlierst. Sie werden nur jetzt gezeigt: bewahre sie sicher auf.",
    "security.copy": "Kopieren",
    "security.download": "Herunterladen",
    "security.copied": "Wiederherstellungscodes kopiert",
    "security.appCode": "Code aus der App",
    "security.turnOn": "Einschalten",
    "security.emailTitle": "Codes per E-Mail",
    "security.emailSend": "Code zum Einschalten senden",
    "security.emailOff": "Codes per E-Mail ausschalten",
    "security.emailCode": "Code aus der E-Mail",
    "security.emailOn": "Codes per E-Mail einschalten",
    "security.emailIsOn": "An: Anmeldungen können einen Code an {email} senden.",
    "security.emailIsOff": "Aus.",
    "security.preferredTitle": "Zuerst gefragte Methode",
    "security.preferredSave": "Speichern",
    "security.providersTitle": "Identitätsanbieter",
    "security.link": "{name} verknüpfen",
    "security.unlink": "{name} trennen",
    "footer.lead":
      "Jeder Knopf ruft die HTTP-Routen der Bibliothek unter /api/auth auf; Tokens liegen in HttpOnly-Cookies.",
    "footer.outbox": "Dev-Postausgang",
    "done.signup":
      "Konto erstellt (falls die Adresse neu war). Bestätige deine Adresse über den Link in der E-Mail und melde dich dann an.",
    "done.login": "Angemeldet",
    "done.recovered": "Mit einem Wiederherstellungscode angemeldet. Er gilt kein zweites Mal.",
    "done.resetRequested": "Falls die Adresse ein Konto hat, ist ein Link unterwegs.",
    "done.reset":
      "Passwort geändert: alle Sitzungen wurden abgemeldet. Melde dich mit dem neuen Passwort an.",
    "done.verificationSent": "Bestätigungs-E-Mail gesendet",
    "done.logout": "Abgemeldet",
    "done.revoked": "Sitzung beendet",
    "done.revokedAll": "Überall abgemeldet",
    "done.revokedOthers": "Andere Sitzungen abgemeldet ({count})",
    "done.stepUp": "Bestätigt: du kannst die Sicherheitseinstellungen einige Minuten lang ändern.",
    "done.stepUpCode": "Gib jetzt deinen Code für den zweiten Faktor ein.",
    "done.totpStart":
      "Scanne den QR-Code, bewahre die Wiederherstellungscodes auf und gib dann den Code der App ein.",
    "done.totpOn": "Authenticator-App eingeschaltet",
    "done.totpOff": "Authenticator-App ausgeschaltet",
    "done.codeSent": "Ein Code ist unterwegs in dein Postfach",
    "done.emailOn": "Codes per E-Mail eingeschaltet",
    "done.emailOff": "Codes per E-Mail ausgeschaltet",
    "done.preferred": "Gespeichert",
    "done.unlinked": "{name} getrennt",
    "done.linked": "{name} ist mit deinem Konto verknüpft",
    "error.provider": "Die Anmeldung beim Identitätsanbieter hat nicht geklappt. Bitte versuche es erneut.",
    "error.signInFirst": "Bitte melde dich an, um fortzufahren.",
    "error.network": "Der Server ist nicht erreichbar. Prüfe deine Verbindung und versuche es erneut.",
    "error.fields": "Bitte prüfe die markierten Felder.",
    "error.reusedCode":
      "Jeder Code gilt nur einmal: Wenn du diesen gerade benutzt hast, warte auf den nächsten Code in deiner App (alle 30 Sekunden kommt ein neuer).",
    "error.cooldown": "{message} Versuche es in {seconds} s erneut.",
    "error.cooldownOver": "Du kannst es jetzt erneut versuchen.",
    "code.INVALID_CREDENTIALS": "E-Mail-Adresse oder Passwort ist falsch.",
    "code.WRONG_TWO_FACTOR_CODE": "Dieser Code stimmt nicht.",
    "code.EMAIL_NOT_VERIFIED": "Bitte bestätige zuerst deine E-Mail-Adresse über den Link in unserer E-Mail.",
    "code.STEP_UP_REQUIRED": "Bitte bestätige dein Passwort erneut, um diese Einstellung zu ändern.",
    "code.PASSWORD_POLICY_VIOLATION": "Wähle ein längeres oder weniger gängiges Passwort.",
    "code.EMAIL_COOLDOWN_ACTIVE": "Eben wurde schon eine E-Mail gesendet.",
    "code.LOGIN_THROTTLED": "Zu viele fehlgeschlagene Anmeldeversuche.",
    "code.RATE_LIMITED": "Zu viele Anfragen aus deinem Netz.",
    "code.TWO_FACTOR_THROTTLED": "Zu viele falsche Codes.",
    "code.TWO_FACTOR_TOKEN_INVALID": "Die Anmeldung hat zu lange gedauert. Bitte melde dich erneut an.",
    "code.AUTHENTICATION_REQUIRED": "Bitte melde dich an, um fortzufahren.",
    "code.ACCESS_TOKEN_EXPIRED": "Deine Sitzung ist abgelaufen. Bitte melde dich erneut an.",
    "code.EMAIL_ALREADY_VERIFIED": "Diese Adresse war schon bestätigt. Es ist nichts weiter zu tun.",
    "twoFactor.back": "Zurück zur Anmeldung",
    "twoFactor.resumed": "Deine Anmeldung wartet auf den zweiten Schritt.",
    "signedOut.elsewhere":
      "Du wurdest abgemeldet (diese Sitzung wurde anderswo beendet). Bitte melde dich erneut an.",
    "stepUp.wrongPassword": "Dieses Passwort stimmt nicht. Gib das Passwort dieses Kontos ein.",
    "confirm.revoke": "Die Sitzung „{session}“ abmelden? Dieser Browser muss sich dann neu anmelden.",
    "confirm.revokeAll": "Alle Sitzungen abmelden, auch diese?",
    "confirm.revokeOthers": "Alle anderen Sitzungen abmelden? Nur dieser Browser bleibt angemeldet.",
    "confirm.yes.revoke": "Ja, abmelden",
    "confirm.yes.revokeAll": "Ja, überall abmelden",
    "confirm.yes.revokeOthers": "Ja, die anderen abmelden",
    "confirm.cancel": "Abbrechen",
    "invalid.email.required": "Gib deine E-Mail-Adresse ein.",
    "invalid.email.format": "Gib eine E-Mail-Adresse wie name@example.com ein.",
    "invalid.email": "Gib eine gültige E-Mail-Adresse ein.",
    "invalid.password.required": "Gib dein Passwort ein.",
    "invalid.password": "Wähle ein Passwort, das den Regeln entspricht.",
    "invalid.newPassword.required": "Gib ein neues Passwort ein.",
    "invalid.newPassword": "Wähle ein Passwort, das den Regeln entspricht.",
    "invalid.name": "Gib einen kürzeren Namen ein.",
    "invalid.code.required": "Gib den Code ein.",
    "invalid.code": "Gib den Code so ein, wie er angezeigt oder gesendet wurde.",
    "error.unexpected": "Etwas ist schiefgegangen (HTTP {status}). Bitte versuche es erneut.",
  },
};

const pickLanguage = () => {
  const stored = localStorage.getItem("language");
  if (stored && stored in STRINGS) return stored;
  return (navigator.language ?? "en").toLowerCase().startsWith("de") ? "de" : "en";
};
let language = pickLanguage();
const t = (key, vars = {}) =>
  (STRINGS[language][key] ?? STRINGS.en[key] ?? key).replace(/\{(\w+)\}/g, (_, name) =>
    String(vars[name] ?? ""),
  );
const has = (key) => key in STRINGS[language] || key in STRINGS.en;

// ---- API ---------------------------------------------------------------------------------------
/** An error answer of the API: its `code`, localized `message`, `errors` list and `remaining`. */
class ApiError extends Error {
  constructor(status, code, data) {
    super(data.message ?? code ?? String(status));
    this.status = status;
    this.code = code;
    this.errors = Array.isArray(data.errors) ? data.errors : [];
    this.remaining = typeof data.remaining === "number" ? data.remaining : undefined;
    /** False for an answer without a message (a 304, a proxy's error page): never show its bare code. */
    this.hasMessage = typeof data.message === "string" && data.message !== "";
  }
}
/** The words for an API error: ours for its code, else the API's localized message, never a bare code. */
const messageOf = (error) =>
  has(`code.${error.code}`)
    ? t(`code.${error.code}`)
    : error.hasMessage
      ? error.message
      : t("error.unexpected", { status: error.status });
const request = async (method, path, body) => {
  const separator = path.includes("?") ? "&" : "?";
  const response = await fetch(`/api/auth${path}${separator}locale=${language}`, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const code = response.headers.get("auth-error-code");
  const data = response.status === 304 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, code ?? data.code, data);
  return data;
};

/** 401 codes a refresh can fix: the access token (or its cookie, which ends with it) ran out. */
const REFRESHABLE = ["ACCESS_TOKEN_EXPIRED", "ACCESS_TOKEN_INVALID", "AUTHENTICATION_REQUIRED"];
/** Routes that are themselves a sign-in or sign-out: their 401 is the answer, not a stale token. */
const NO_REFRESH = ["/refresh", "/login", "/logout", "/register", "/2fa/login", "/2fa/recover"];
/** Set while this browser has a session (it may have a refresh cookie worth trying). */
const SIGNED_IN_KEY = "portcullis-signed-in";
let refreshing = null;
/**
 * Rotates the refresh token once for the whole page (callers during a refresh wait for it), and
 * across tabs one at a time under a Web Lock when the browser has them. True when it worked.
 */
const refreshSession = () => {
  const rotate = () =>
    request("POST", "/refresh", {}).then(
      () => true,
      () => false,
    );
  refreshing ??= (navigator.locks ? navigator.locks.request("portcullis-refresh", rotate) : rotate()).finally(
    () => {
      refreshing = null;
    },
  );
  return refreshing;
};
/** An API call; an ended access token is refreshed once and the call retried once. */
const api = async (method, path, body) => {
  try {
    return await request(method, path, body);
  } catch (error) {
    const route = path.split("?")[0];
    // Without any cookie (AUTHENTICATION_REQUIRED), try only if this browser was signed in lately.
    const stale =
      error instanceof ApiError &&
      error.status === 401 &&
      REFRESHABLE.includes(error.code) &&
      (error.code !== "AUTHENTICATION_REQUIRED" || localStorage.getItem(SIGNED_IN_KEY) === "1");
    if (!stale || NO_REFRESH.includes(route) || !(await refreshSession())) throw error;
    return request(method, path, body);
  }
};

// ---- Page helpers ------------------------------------------------------------------------------
const $ = (id) => document.getElementById(id);
const show = (id, visible) => {
  $(id).hidden = !visible;
};
const fields = (form) => Object.fromEntries(new FormData(form).entries());
const element = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
};
const button = (text, onClick, className) => {
  const node = element("button", { type: "button", textContent: text });
  if (className) node.className = className;
  node.addEventListener("click", onClick);
  return node;
};
/** Dates and numbers in the page's language (not the browser's), in the viewer's time zone. */
const dateTime = (iso) =>
  new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
const number = (value) => new Intl.NumberFormat(language).format(value);

let countdown;
/** The status line: `kind` is "ok" or "error"; `seconds` starts a countdown (429 `remaining`). */
function say(text, kind = "ok", seconds) {
  clearInterval(countdown);
  const status = $("status");
  status.hidden = !text;
  status.className = kind;
  if (!seconds) {
    status.textContent = text;
    return;
  }
  let left = seconds;
  const tick = () => {
    status.textContent =
      left > 0 ? t("error.cooldown", { message: text, seconds: number(left) }) : t("error.cooldownOver");
    if (left <= 0) clearInterval(countdown);
    left -= 1;
  };
  tick();
  countdown = setInterval(tick, 1000);
}

/** Keeps a button disabled for a 429's `remaining` seconds, whatever the status line shows meanwhile. */
function holdButton(node, seconds) {
  node.disabled = true;
  node.dataset.cooldown = "1";
  clearTimeout(node.cooldownTimer);
  node.cooldownTimer = setTimeout(() => {
    node.disabled = false;
    delete node.dataset.cooldown;
  }, seconds * 1000);
}

/** Marks an input invalid with a message under it. */
const markField = (input, message) => {
  input.setAttribute("aria-invalid", "true");
  const note = element("small", { className: "field-error", textContent: message });
  note.id = `${input.form?.id ?? "form"}-${input.name}-error`;
  input.setAttribute("aria-describedby", note.id);
  input.closest("label").append(note);
};

/**
 * Checks a form before sending: every empty required field and every malformed email address at
 * once, in the page's language. False (with the fields marked) when something is missing.
 */
function validate(form) {
  clearFieldErrors();
  let valid = true;
  for (const input of form.querySelectorAll("input[name]")) {
    const value = input.value.trim();
    const key =
      input.required && value === ""
        ? `invalid.${input.name}.required`
        : input.type === "email" && value !== "" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)
          ? `invalid.${input.name}.format`
          : null;
    if (!key) continue;
    markField(input, has(key) ? t(key) : t("error.fields"));
    valid = false;
  }
  if (!valid) {
    say(t("error.fields"), "error");
    form.querySelector("[aria-invalid]")?.focus();
  }
  return valid;
}

const clearFieldErrors = () => {
  for (const node of document.querySelectorAll(".field-error")) node.remove();
  for (const node of document.querySelectorAll("[aria-invalid]")) {
    node.removeAttribute("aria-invalid");
    node.removeAttribute("aria-describedby");
  }
};

/** A human message from an error's code (and its field errors, placed under their inputs). */
/** The code of the last error shown ("" for none). */
let lastErrorCode = "";
function showError(error, form, context = {}) {
  lastErrorCode = error instanceof ApiError ? (error.code ?? "") : "";
  if (!(error instanceof ApiError)) {
    say(t("error.network"), "error");
    return;
  }
  if (error.errors.length > 0) {
    const loose = [];
    for (const issue of error.errors) {
      const name = String(issue.path ?? "")
        .split(/[./]/)
        .filter(Boolean)
        .pop();
      const input = name && form?.querySelector(`[name="${CSS.escape(name)}"]`);
      // The API's localized message for the field when it has one, else ours for the field.
      const text =
        typeof issue.message === "string" && issue.message !== ""
          ? issue.message
          : name && has(`invalid.${name}`)
            ? t(`invalid.${name}`)
            : t("error.fields");
      if (input && !input.hasAttribute("aria-invalid")) markField(input, text);
      else if (!input) loose.push(text);
    }
    say(loose.length > 0 ? loose.join(" ") : t("error.fields"), "error");
    return;
  }
  const message = context.messages?.[error.code] ? t(context.messages[error.code]) : messageOf(error);
  if (error.code === "WRONG_TWO_FACTOR_CODE" && context.method === "totp") {
    say(`${message} ${t("error.reusedCode")}`, "error");
    return;
  }
  if (error.status === 429 && error.remaining) {
    if (context.button) holdButton(context.button, error.remaining);
    say(message, "error", error.remaining);
    return;
  }
  say(message, "error");
}

/** Runs an API action from a form or button: clears old errors, shows success or a human error. */
async function run(action, done, options = {}) {
  clearFieldErrors();
  try {
    const result = await action();
    const text = typeof done === "function" ? done(result) : done;
    if (text) say(text);
    return result;
  } catch (error) {
    showError(error, options.form, options);
    if (error instanceof ApiError && error.code === "STEP_UP_REQUIRED") stepUpUntil = 0;
    return undefined;
  } finally {
    if (options.refresh !== false) await loadMe();
    render();
  }
}
const onSubmit = (id, handler) =>
  $(id).addEventListener("submit", (event) => {
    event.preventDefault();
    handler(event.target, fields(event.target), event.submitter);
  });

// ---- State and routing -------------------------------------------------------------------------
const query = new URLSearchParams(location.search);
const token = query.get("token");
let me = null;
let sessions = [];
let providers = [];
let pendingLogin = null;
/** The method picked in the second step (null: the account's preferred one). */
let twoFactorChoice = null;
/** True once the user asked for an emailed code in the second step. */
let emailRequested = false;
let stepUpUntil = 0;

/** True while the user signs out on purpose (sign out, sign out everywhere, a password reset). */
let signingOut = false;
async function loadMe() {
  const before = me;
  try {
    me = await api("GET", "/me");
    localStorage.setItem(SIGNED_IN_KEY, "1");
    sessions = (await api("GET", "/sessions")).sessions;
  } catch (error) {
    // Only an answer that says "not signed in" signs the page out; a network failure keeps it.
    if (before && !(error instanceof ApiError && error.status === 401)) return;
    if (error instanceof ApiError && error.status === 401) localStorage.removeItem(SIGNED_IN_KEY);
    me = null;
    sessions = [];
    stepUpUntil = 0;
    if (before && !signingOut) say(t("signedOut.elsewhere"), "error");
  }
}

/** The light poll: while the page is visible and signed in, the session is checked every 30 s. */
const POLL_MS = 30_000;
async function checkSession() {
  if (document.visibilityState !== "visible" || !me) return;
  const wasIn = Boolean(me);
  await loadMe();
  if (wasIn && !me) navigate("/login", true);
  else render();
}
setInterval(checkSession, POLL_MS);
document.addEventListener("visibilitychange", checkSession);

/** The second step survives a reload (its token is an HttpOnly cookie; only the methods are kept here). */
const PENDING_KEY = "portcullis-pending-login";
const keepPendingLogin = () => {
  if (pendingLogin)
    sessionStorage.setItem(
      PENDING_KEY,
      JSON.stringify({
        twoFactorMethods: pendingLogin.twoFactorMethods,
        preferredTwoFactorMethod: pendingLogin.preferredTwoFactorMethod ?? null,
        viaProvider: Boolean(pendingLogin.viaProvider),
        emailRequested,
      }),
    );
  else sessionStorage.removeItem(PENDING_KEY);
};
const restorePendingLogin = () => {
  try {
    const saved = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? "null");
    if (!saved || !Array.isArray(saved.twoFactorMethods)) return false;
    pendingLogin = saved;
    emailRequested = Boolean(saved.emailRequested);
    return true;
  } catch {
    return false;
  }
};
const dropPendingLogin = () => {
  pendingLogin = null;
  twoFactorChoice = null;
  emailRequested = false;
  keepPendingLogin();
};

const SIGNED_IN_ONLY = ["/account", "/settings/security", "/activity"];
const SIGNED_OUT_ONLY = ["/login", "/signup", "/login/2fa"];
function currentView() {
  let path = location.pathname;
  if (path === "/") path = me ? "/account" : "/login";
  if (path === "/login" && pendingLogin) path = "/login/2fa";
  if (path === "/login/2fa" && !pendingLogin) path = "/login";
  if (SIGNED_IN_ONLY.includes(path) && !me) path = "/login";
  if (SIGNED_OUT_ONLY.includes(path) && me) path = "/account";
  return path;
}
function navigate(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  render();
}
document.addEventListener("click", (event) => {
  const link = event.target.closest?.("a[data-link]");
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  if (link.pathname === location.pathname && !location.search) return;
  say("");
  navigate(link.pathname);
});
window.addEventListener("popstate", render);

// ---- Rendering ---------------------------------------------------------------------------------
function applyStrings() {
  document.documentElement.lang = language;
  $("language").value = language;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
}

const radios = (name, methods, checked) =>
  methods.map((method) =>
    element(
      "label",
      { className: "choice" },
      element("input", { type: "radio", name, value: method, checked: method === checked }),
      ` ${t(`method.${method}`)}`,
    ),
  );

function renderTwoFactor() {
  if (!pendingLogin) return;
  const methods = pendingLogin.twoFactorMethods;
  const method = twoFactorChoice ?? pendingLogin.preferredTwoFactorMethod ?? methods[0];
  $("two-factor-methods").replaceChildren(...(methods.length > 1 ? radios("method", methods, method) : []));
  show("two-factor-methods", methods.length > 1);
  show("two-factor-email", methods.includes("email"));
  // A password sign-in whose preferred method is email has mailed a code already (a provider's
  // return does not say which method is preferred).
  const mailed =
    emailRequested || (!pendingLogin.viaProvider && pendingLogin.preferredTwoFactorMethod === "email");
  const hint = method !== "email" ? "totp" : mailed ? "emailSent" : "email";
  $("two-factor-hint").textContent = t(`twoFactor.hint.${hint}`);
  // Recovery codes come with the authenticator app: an email-only account has none.
  show("two-factor-recover", methods.includes("totp") || methods.includes("recovery"));
}

function renderAccount() {
  if (!me) return;
  $("me-email").textContent = me.email;
  const methods = me.twoFactorMethods.map((method) => t(`method.${method}`)).join(", ") || t("none");
  const rows = [
    ["me.name", me.name ?? "—"],
    ["me.emailVerified", me.emailVerified ? t("yes") : t("no")],
    ["me.twoFactor", methods],
    ...(me.preferredTwoFactorMethod ? [["me.preferred", t(`method.${me.preferredTwoFactorMethod}`)]] : []),
    ["me.createdAt", dateTime(me.createdAt)],
    ["me.id", me.id],
  ];
  const list = (target) =>
    $(target).replaceChildren(
      ...rows.flatMap(([key, value]) => [
        element("dt", { textContent: t(key) }),
        element("dd", { textContent: value }),
      ]),
    );
  list("me");
  list("security-state");
  show("resend-verification", !me.emailVerified);
  show(
    "revoke-others",
    sessions.some((session) => !session.current),
  );
  $("sessions").replaceChildren(
    ...sessions.map((session) => {
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
          session.current
            ? element("span", { className: "badge", textContent: t("account.thisDevice") })
            : "",
          element("br"),
          element("small", { className: "muted", textContent: times }),
        ),
        button(
          t("account.revoke"),
          () =>
            askFirst(t("confirm.revoke", { session: line }), t("confirm.yes.revoke"), () =>
              run(() => api("DELETE", `/sessions/${encodeURIComponent(session.id)}`), t("done.revoked")),
            ),
          "danger small",
        ),
      );
    }),
  );
  renderProviders();
}

function renderProviders() {
  const linked = new Set(me?.identityProviders ?? []);
  const nameOf = (id) => providers.find((provider) => provider.name === id)?.displayName ?? id;
  $("linked-providers").replaceChildren(
    ...[...(me?.hasPassword ? [t("account.passwordMethod")] : []), ...[...linked].map(nameOf)].map((method) =>
      element("li", { textContent: method }),
    ),
  );
  // A password-less account confirms changes by signing in at its provider again.
  const stepUpWith = providers.filter((provider) => !me?.hasPassword && linked.has(provider.name));
  $("step-up-providers").replaceChildren(
    ...stepUpWith.map((provider) =>
      button(t("security.confirmWith", { name: provider.displayName }), () => {
        location.href = authorizeUrl(provider.name, "&stepUp=1");
      }),
    ),
  );
  show("step-up-providers", stepUpWith.length > 0);
  $("provider-settings").replaceChildren(
    ...providers.map((provider) =>
      linked.has(provider.name)
        ? button(
            t("security.unlink", { name: provider.displayName }),
            () =>
              run(
                () => api("DELETE", `/oauth/${encodeURIComponent(provider.name)}`),
                t("done.unlinked", { name: provider.displayName }),
              ),
            "danger",
          )
        : button(t("security.link", { name: provider.displayName }), () =>
            run(async () => {
              const { authorizationUrl } = await api(
                "POST",
                `/oauth/${encodeURIComponent(provider.name)}/link`,
                {
                  returnTo: "/settings/security",
                },
              );
              location.href = authorizationUrl;
            }),
          ),
    ),
  );
}

function renderSecurity() {
  if (!me) {
    stepUpUntil = 0;
    return;
  }
  const confirmed = Date.now() < stepUpUntil;
  show("step-up-box", !confirmed);
  show("step-up", !confirmed && me.hasPassword !== false && $("step-up-code").hidden);
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
      ...radios("method", me.twoFactorMethods, me.preferredTwoFactorMethod ?? me.twoFactorMethods[0]),
    );
}

// ---- Activity ----------------------------------------------------------------------------------
/** The activity page's entries so far, and the cursor of the next (older) page; null: none loaded. */
let activity = null;
const ACTIVITY_PAGE = 10;

/** The words for an entry: the event, with its method or cause when it has one. */
function activityTitle(item) {
  const [kind] = (item.reason ?? "").split(":");
  if (item.type === "session.revoked" && has(`event.session.${kind}`)) return t(`event.session.${kind}`);
  const event = has(`event.${item.type}`) ? t(`event.${item.type}`) : item.type;
  const reason = item.reason ?? "";
  const provider = reason.startsWith("oidc:")
    ? (providers.find((p) => p.name === reason.slice(5))?.displayName ?? reason.slice(5))
    : null;
  const detail = provider
    ? t("reason.provider", { name: provider })
    : has(`method.${reason}`)
      ? t(`method.${reason}`)
      : has(`reason.${reason}`)
        ? t(`reason.${reason}`)
        : "";
  return detail ? t("activity.with", { event, detail }) : event;
}

function renderActivity() {
  const items = activity?.items ?? [];
  const unknown = t("account.unknown");
  $("activity-list").replaceChildren(
    ...items.map((item) =>
      element(
        "li",
        {},
        element("strong", { textContent: activityTitle(item) }),
        element("small", {
          className: "muted",
          textContent: t("activity.line", {
            time: dateTime(item.at),
            browser: item.browser ?? unknown,
            os: item.os ?? unknown,
            ip: item.ip ?? unknown,
          }),
        }),
      ),
    ),
  );
  show("activity-empty", activity !== null && !activity.loading && items.length === 0);
  show("activity-more", Boolean(activity?.nextCursor));
}

/** Loads the first page (`more`: the next one after what is shown). */
async function loadActivity(more = false) {
  const cursor = more && activity?.nextCursor ? `&cursor=${encodeURIComponent(activity.nextCursor)}` : "";
  const page = await api("GET", `/activity?limit=${ACTIVITY_PAGE}${cursor}`);
  activity = {
    items: [...(more ? (activity?.items ?? []) : []), ...page.items],
    nextCursor: page.nextCursor,
  };
  renderActivity();
}
$("activity-more").addEventListener("click", () => run(() => loadActivity(true), "", { refresh: false }));

/** The view shown last: a change moves the focus to the new view's heading. */
let shownView = null;
function render() {
  applyStrings();
  const view = currentView();
  if (view !== "/account" || !me) closeConfirm();
  const url = view === "/login/2fa" ? "/login" : view;
  if (url !== location.pathname && location.pathname !== "/") history.replaceState(null, "", url);
  for (const section of document.querySelectorAll(".view")) section.hidden = section.dataset.view !== view;
  for (const node of document.querySelectorAll("[data-when]"))
    node.hidden = (node.dataset.when === "in") !== Boolean(me);
  for (const link of document.querySelectorAll("nav a[data-link]"))
    link.classList.toggle("current", link.pathname === view);
  if (!me) {
    // Signed out: nothing of the account or its settings stays on the page.
    for (const id of ["totp-confirm", "email-enable", "step-up-code"]) show(id, false);
    for (const id of ["me", "security-state", "sessions", "recovery-codes", "linked-providers"])
      $(id).replaceChildren();
    $("totp-secret").textContent = "";
    $("totp-uri").textContent = "";
    $("totp-qr").removeAttribute("src");
  }
  renderTwoFactor();
  renderAccount();
  renderSecurity();
  if (view !== "/activity" || !me) activity = null;
  else if (activity === null) {
    // Shown empty until the first page arrives; a failure leaves it so (no retry loop).
    activity = { items: [], nextCursor: null, loading: true };
    run(() => loadActivity(), "", { refresh: false });
  }
  renderActivity();
  $("provider-buttons").replaceChildren(
    ...providers.map((provider) =>
      element("a", {
        className: "button",
        href: authorizeUrl(provider.name),
        textContent: t("login.providerButton", { name: provider.displayName }),
      }),
    ),
  );
  show("providers", providers.length > 0);
  show("provider-settings-card", providers.length > 0);
  if (shownView !== null && shownView !== view) {
    const heading = document.querySelector(`.view[data-view="${view}"] h1`);
    if (heading && !heading.closest(".view").contains(document.activeElement)) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }
  shownView = view;
}

/** Sign-in and step-up at a provider are browser navigations: it redirects back to the callback. */
const authorizeUrl = (name, extra = "") =>
  `/api/auth/oauth/${encodeURIComponent(name)}/authorize?returnTo=%2F${extra}`;

// ---- Confirmations -----------------------------------------------------------------------------
/** The focus before a confirmation opened, given back when it closes. */
let confirmReturn = null;
function closeConfirm() {
  const box = $("confirm");
  if (box.hidden) return;
  box.hidden = true;
  box.replaceChildren();
  if (confirmReturn?.isConnected) confirmReturn.focus();
  confirmReturn = null;
}
/** Asks in the page (not window.confirm) before an action that signs sessions out. */
function askFirst(question, yes, action) {
  confirmReturn = document.activeElement;
  const box = $("confirm");
  box.replaceChildren(
    element("p", { id: "confirm-question", textContent: question }),
    element(
      "div",
      { className: "row" },
      button(
        yes,
        () => {
          confirmReturn = null;
          closeConfirm();
          action();
        },
        "danger confirm-yes",
      ),
      button(t("confirm.cancel"), closeConfirm, "secondary confirm-cancel"),
    ),
  );
  box.hidden = false;
  box.querySelector(".confirm-cancel").focus();
}
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") closeConfirm();
});

// ---- Flows -------------------------------------------------------------------------------------
$("language").addEventListener("change", (event) => {
  language = event.target.value;
  localStorage.setItem("language", language);
  say("");
  render();
});

onSubmit(
  "signup",
  (form, { email, password, name }) =>
    validate(form) &&
    run(() => api("POST", "/register", { email, password, ...(name ? { name } : {}) }), t("done.signup"), {
      form,
    }).then((result) => {
      if (result) form.reset();
    }),
);

const startSecondFactor = (result) => {
  pendingLogin = result;
  twoFactorChoice = null;
  emailRequested = false;
  keepPendingLogin();
  say("");
  navigate("/login", true);
};
onSubmit(
  "login",
  (form, { rememberMe, ...body }, submitter) =>
    validate(form) &&
    run(
      // An unticked "Keep me signed in": the session's cookies end when the browser closes. The
      // choice rides along in the 2FA token when a second factor follows.
      () => api("POST", "/login", { ...body, rememberMe: rememberMe === "on" }),
      (result) => {
        if (result.twoFactorRequired) {
          pendingLogin = result;
          return "";
        }
        return t("done.login");
      },
      { form, button: submitter ?? form.querySelector("button[type=submit]") },
    ).then((result) => {
      if (!result) return;
      form.reset();
      if (result.twoFactorRequired) startSecondFactor(result);
      else navigate("/account", true);
    }),
);

/** After a second factor: once signed in, forget the pending login and go to the account. */
const finishSecondFactor = (form) => (result) => {
  if (!result) return;
  dropPendingLogin();
  form.reset();
  navigate("/account", true);
};

$("two-factor-code").addEventListener("change", (event) => {
  if (event.target.name !== "method") return;
  twoFactorChoice = event.target.value;
  renderTwoFactor();
});
/** A 2FA token that ran out (or a reload after it did): back to the sign-in form, with the reason shown. */
const secondStepLost = () => {
  if (!pendingLogin || lastErrorCode !== "TWO_FACTOR_TOKEN_INVALID") return;
  dropPendingLogin();
  navigate("/login", true);
};
$("two-factor-back").addEventListener("click", (event) => {
  event.preventDefault();
  dropPendingLogin();
  say("");
  navigate("/login", true);
});
onSubmit("two-factor-code", (form, { code, method }) => {
  if (!validate(form)) return;
  // An emailed code needs its method named unless email is the preferred one: when the user asked
  // for an email code, send "email" even if the method choice was left alone.
  const chosen = method || (emailRequested ? "email" : undefined);
  return run(
    () => api("POST", "/2fa/login", { code, ...(chosen ? { method: chosen } : {}) }),
    t("done.login"),
    {
      form,
      method: chosen ?? pendingLogin?.preferredTwoFactorMethod ?? pendingLogin?.twoFactorMethods[0],
    },
  )
    .then(finishSecondFactor(form))
    .then(secondStepLost);
});
$("two-factor-email").addEventListener("click", (event) =>
  run(
    () => api("POST", "/2fa/email/send"),
    () => {
      emailRequested = true;
      keepPendingLogin();
      if (pendingLogin?.twoFactorMethods.length > 1) twoFactorChoice = "email";
      return t("done.codeSent");
    },
    { button: event.currentTarget, refresh: false },
  ),
);
onSubmit(
  "two-factor-recover",
  (form, body) =>
    validate(form) &&
    run(() => api("POST", "/2fa/recover", body), t("done.recovered"), { form, method: "recovery" })
      .then(finishSecondFactor(form))
      .then(secondStepLost),
);

onSubmit(
  "forgot-password",
  (form, body, submitter) =>
    validate(form) &&
    run(() => api("POST", "/password/reset-request", body), t("done.resetRequested"), {
      form,
      button: submitter,
      refresh: false,
    }),
);
onSubmit("reset-password", (form, body) => {
  if (!token) {
    say(t("reset.noToken"), "error");
    return;
  }
  if (!validate(form)) return;
  signingOut = true;
  return run(() => api("POST", `/password/reset?token=${encodeURIComponent(token)}`, body), t("done.reset"), {
    form,
  })
    .then((result) => {
      if (!result) return;
      form.reset();
      navigate("/login", true);
    })
    .finally(() => {
      signingOut = false;
    });
});

$("resend-verification").addEventListener("click", (event) =>
  run(
    () =>
      api("POST", "/email/verification/send").catch((error) => {
        // 304 EMAIL_ALREADY_VERIFIED (verified from the email meanwhile): done, not a failure.
        if (error instanceof ApiError && error.code === "EMAIL_ALREADY_VERIFIED")
          return { alreadyVerified: true };
        throw error;
      }),
    (result) => (result.alreadyVerified ? t("verify.already") : t("done.verificationSent")),
    { button: event.currentTarget },
  ),
);
/** Signs this page out on purpose: no "signed out elsewhere" notice for it. */
const signOut = (action, done) => {
  signingOut = true;
  return run(action, done)
    .then(() => navigate("/login", true))
    .finally(() => {
      signingOut = false;
    });
};
$("logout").addEventListener("click", () => signOut(() => api("POST", "/logout"), t("done.logout")));
$("revoke-all").addEventListener("click", () =>
  askFirst(t("confirm.revokeAll"), t("confirm.yes.revokeAll"), () =>
    signOut(() => api("DELETE", "/sessions"), t("done.revokedAll")),
  ),
);
$("revoke-others").addEventListener("click", (event) => {
  const origin = event.currentTarget;
  askFirst(t("confirm.revokeOthers"), t("confirm.yes.revokeOthers"), () =>
    run(
      () => api("DELETE", "/sessions?others=true"),
      (result) => t("done.revokedOthers", { count: number(result.revoked) }),
      { button: origin },
    ),
  );
});

const stepUpDone = () => {
  stepUpUntil = Date.now() + 4.5 * 60 * 1000;
  show("step-up-code", false);
  return t("done.stepUp");
};
onSubmit(
  "step-up",
  (form, body) =>
    validate(form) &&
    run(
      () => api("POST", "/step-up", body),
      (result) => {
        form.reset();
        if (!result.twoFactorRequired) return stepUpDone();
        show("step-up-code", true);
        return t("done.stepUpCode");
      },
      // A wrong password here is not a sign-in: no "email or password" in the message.
      { form, messages: { INVALID_CREDENTIALS: "stepUp.wrongPassword" } },
    ),
);
onSubmit("step-up-code", (form, body) =>
  run(() => api("POST", "/2fa/step-up", body), stepUpDone, {
    form,
    method: me?.preferredTwoFactorMethod ?? me?.twoFactorMethods[0],
  }).then((result) => result && form.reset()),
);

/** Settings changes: like `run`; an expired step-up (STEP_UP_REQUIRED) asks to confirm again. */
const settingsRun = run;

$("totp-setup").addEventListener("click", () =>
  settingsRun(async () => {
    const setup = await api("GET", "/2fa/totp/setup");
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
onSubmit("totp-confirm", (form, { code }) =>
  settingsRun(
    () => api("POST", "/2fa/totp/setup", { setupToken: form.dataset.setupToken, code }),
    t("done.totpOn"),
    {
      form,
      method: "totp",
    },
  ).then((result) => {
    if (!result) return;
    form.reset();
    show("totp-confirm", false);
  }),
);
$("totp-disable").addEventListener("click", () =>
  settingsRun(() => api("DELETE", "/2fa/totp"), t("done.totpOff")).then(() => show("totp-confirm", false)),
);
$("email-send").addEventListener("click", (event) =>
  settingsRun(
    () => api("POST", "/2fa/email/send").then(() => show("email-enable", true)),
    t("done.codeSent"),
    { button: event.currentTarget },
  ),
);
onSubmit("email-enable", (form, body) =>
  settingsRun(() => api("POST", "/2fa/email/enable", { ...body, method: "email" }), t("done.emailOn"), {
    form,
    method: "email",
  }).then((result) => {
    if (!result) return;
    form.reset();
    show("email-enable", false);
  }),
);
$("email-disable").addEventListener("click", () =>
  settingsRun(() => api("DELETE", "/2fa/email"), t("done.emailOff")),
);
onSubmit("preferred", (form, { method }) =>
  settingsRun(() => api("POST", "/2fa/preferred-method", { method }), t("done.preferred"), { form }),
);

// ---- Start -------------------------------------------------------------------------------------
async function verifyFromLink() {
  const result = $("verify-result");
  if (!token) {
    result.textContent = t("verify.noToken");
    return;
  }
  try {
    await api("POST", `/email/verification?token=${encodeURIComponent(token)}`);
    result.textContent = t("verify.done");
    result.className = "ok";
  } catch (error) {
    // 304 EMAIL_ALREADY_VERIFIED: the link was used before; that is not a failure.
    if (error instanceof ApiError && error.code === "EMAIL_ALREADY_VERIFIED") {
      result.textContent = t("verify.already");
      result.className = "ok";
    } else {
      result.textContent = error instanceof ApiError ? messageOf(error) : t("error.network");
      result.className = "error";
    }
  }
}

async function start() {
  applyStrings();
  const [, providerList] = await Promise.all([
    loadMe(),
    api("GET", "/oauth/providers").then(
      (result) => result.providers,
      () => [],
    ),
  ]);
  providers = providerList;
  // Back from an identity provider: the callback redirected here with what happened.
  if (query.has("error")) say(t("error.provider"), "error");
  if (query.get("linked")) say(t("done.linked", { name: query.get("linked") }));
  if (query.get("stepUp") === "1") say(stepUpDone());
  // A reload of the second step: the sign-in is still waiting (until its token runs out). Opening
  // /login afresh starts over.
  const reloaded = performance.getEntriesByType("navigation")[0]?.type === "reload";
  if (!me && reloaded && !query.has("twoFactor") && location.pathname === "/login" && restorePendingLogin())
    say(t("twoFactor.resumed"));
  else if (!query.has("twoFactor")) dropPendingLogin();
  if (query.get("twoFactor") === "login") {
    const twoFactorMethods = (query.get("methods") ?? "").split(",").filter(Boolean);
    pendingLogin = {
      twoFactorMethods,
      preferredTwoFactorMethod: twoFactorMethods[0] ?? null,
      viaProvider: true,
    };
    keepPendingLogin();
  }
  if (query.get("twoFactor") === "step-up") {
    show("step-up-code", true);
    say(t("done.stepUpCode"));
  }
  const back = ["error", "linked", "stepUp", "twoFactor"].some((name) => query.has(name));
  if (back) history.replaceState(null, "", pendingLogin ? "/login" : location.pathname);
  if (query.get("twoFactor") === "step-up" && location.pathname === "/")
    history.replaceState(null, "", "/settings/security");
  if (SIGNED_IN_ONLY.includes(location.pathname) && !me) say(t("error.signInFirst"), "error");
  render();
  if (location.pathname === "/verify-email") await verifyFromLink();
}
start();
