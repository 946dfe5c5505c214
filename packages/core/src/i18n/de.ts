import type { Strings } from "./en.js";

/** German strings. */
export const de: Strings = {
  errors: {
    EMAIL_ALREADY_VERIFIED: "Diese E-Mail-Adresse ist bereits bestätigt.",
    VALIDATION_FAILED: "Die Anfrage ist ungültig.",
    PASSWORD_POLICY_VIOLATION: "Das Passwort erfüllt die Passwortregeln nicht.",
    TWO_FACTOR_DISABLED: "Die Zwei-Faktor-Authentifizierung ist für dieses Konto nicht aktiviert.",
    TWO_FACTOR_CODE_MISSING: "Bitte gib den Zwei-Faktor-Code ein.",
    ACCESS_TOKEN_EXPIRED: "Deine Sitzung ist abgelaufen. Bitte melde dich erneut an.",
    ACCESS_TOKEN_INVALID: "Das Zugriffstoken ist ungültig.",
    AUTHENTICATION_REQUIRED: "Bitte melde dich an, um fortzufahren.",
    INVALID_CREDENTIALS: "E-Mail-Adresse oder Passwort ist falsch.",
    REFRESH_TOKEN_INVALID: "Deine Sitzung ist nicht mehr gültig. Bitte melde dich erneut an.",
    TWO_FACTOR_TOKEN_INVALID: "Die Zwei-Faktor-Anmeldung ist abgelaufen. Bitte melde dich erneut an.",
    WRONG_TWO_FACTOR_CODE: "Der Zwei-Faktor-Code ist falsch.",
    PASSWORD_RESET_TOKEN_INVALID: "Dieser Link zum Zurücksetzen des Passworts ist ungültig.",
    PASSWORD_RESET_TOKEN_EXPIRED:
      "Dieser Link zum Zurücksetzen des Passworts ist abgelaufen. Bitte fordere einen neuen an.",
    EMAIL_VERIFICATION_TOKEN_INVALID: "Dieser Bestätigungslink ist ungültig.",
    EMAIL_VERIFICATION_TOKEN_EXPIRED: "Dieser Bestätigungslink ist abgelaufen. Bitte fordere einen neuen an.",
    STEP_UP_REQUIRED: "Bitte bestätige dein Passwort, um diese Einstellung zu ändern.",
    CSRF_REJECTED: "Die Anfrage wurde abgelehnt, weil sie von einer anderen Website kam.",
    USER_NOT_FOUND: "Das Konto existiert nicht.",
    NOT_FOUND: "Nicht gefunden.",
    PAYLOAD_TOO_LARGE: "Der Anfrageinhalt ist zu groß.",
    UNSUPPORTED_MEDIA_TYPE: "Der Anfrageinhalt muss JSON sein (Content-Type: application/json).",
    EMAIL_COOLDOWN_ACTIVE:
      "Vor Kurzem wurde bereits eine E-Mail gesendet. Bitte warte {{remaining}} Sekunden, bevor du es erneut versuchst.",
    LOGIN_THROTTLED: "Zu viele fehlgeschlagene Anmeldeversuche. Bitte versuche es in {{remaining}} Sekunden erneut.",
    TWO_FACTOR_THROTTLED: "Zu viele falsche Codes. Bitte versuche es in {{remaining}} Sekunden erneut.",
    ACCESS_TOKEN_ALLOWLIST_READING_FAILURE:
      "Deine Sitzung konnte nicht geprüft werden. Bitte versuche es später erneut.",
    DATABASE_FAILURE: "Ein Speicherfehler ist aufgetreten. Bitte versuche es später erneut.",
    DATABASE_ENCRYPTION_FAILURE: "Ein Speicherfehler ist aufgetreten. Bitte versuche es später erneut.",
    EMAIL_COOLDOWN_CACHE_FAILURE: "Die E-Mail kann gerade nicht gesendet werden. Bitte versuche es später erneut.",
    EMAIL_AUTHENTICATION_FAILURE: "Die E-Mail kann gerade nicht gesendet werden. Bitte versuche es später erneut.",
    EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE:
      "Die Bestätigungs-E-Mail konnte nicht vorbereitet werden. Bitte versuche es später erneut.",
    EMAIL_SEND_FAILURE: "Die E-Mail konnte nicht gesendet werden. Bitte versuche es später erneut.",
    EMAIL_TEMPLATE_FAILURE: "Die E-Mail konnte nicht vorbereitet werden. Bitte versuche es später erneut.",
    INTERNAL_ERROR: "Etwas ist schiefgelaufen. Bitte versuche es später erneut.",
    EMAIL_DISABLED: "E-Mails sind für diesen Dienst deaktiviert.",
  },
};
