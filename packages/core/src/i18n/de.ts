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
    SESSION_EXPIRED: "Deine Sitzung ist abgelaufen. Bitte melde dich erneut an.",
    CSRF_REJECTED: "Die Anfrage wurde abgelehnt, weil sie von einer anderen Website kam.",
    USER_NOT_FOUND: "Das Konto existiert nicht.",
    NOT_FOUND: "Nicht gefunden.",
    PAYLOAD_TOO_LARGE: "Der Anfrageinhalt ist zu groß.",
    UNSUPPORTED_MEDIA_TYPE: "Der Anfrageinhalt muss JSON sein (Content-Type: application/json).",
    EMAIL_COOLDOWN_ACTIVE:
      "Vor Kurzem wurde bereits eine E-Mail gesendet. Bitte warte {{remaining}} Sekunden, bevor du es erneut versuchst.",
    LOGIN_THROTTLED:
      "Zu viele fehlgeschlagene Anmeldeversuche. Bitte versuche es in {{remaining}} Sekunden erneut.",
    TWO_FACTOR_THROTTLED: "Zu viele falsche Codes. Bitte versuche es in {{remaining}} Sekunden erneut.",
    RATE_LIMITED:
      "Zu viele Anfragen aus deinem Netzwerk. Bitte versuche es in {{remaining}} Sekunden erneut.",
    EMAIL_NOT_VERIFIED: "Bitte bestätige zuerst deine E-Mail-Adresse.",
    ACCESS_TOKEN_ALLOWLIST_READING_FAILURE:
      "Deine Sitzung konnte nicht geprüft werden. Bitte versuche es später erneut.",
    DATABASE_FAILURE: "Ein Speicherfehler ist aufgetreten. Bitte versuche es später erneut.",
    DATABASE_ENCRYPTION_FAILURE: "Ein Speicherfehler ist aufgetreten. Bitte versuche es später erneut.",
    EMAIL_COOLDOWN_CACHE_FAILURE: "Ein Speicherfehler ist aufgetreten. Bitte versuche es später erneut.",
    EMAIL_AUTHENTICATION_FAILURE:
      "Die E-Mail kann gerade nicht gesendet werden. Bitte versuche es später erneut.",
    EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE:
      "Die Bestätigungs-E-Mail konnte nicht vorbereitet werden. Bitte versuche es später erneut.",
    EMAIL_SEND_FAILURE: "Die E-Mail konnte nicht gesendet werden. Bitte versuche es später erneut.",
    EMAIL_TEMPLATE_FAILURE: "Die E-Mail konnte nicht vorbereitet werden. Bitte versuche es später erneut.",
    INTERNAL_ERROR: "Etwas ist schiefgelaufen. Bitte versuche es später erneut.",
    EMAIL_DISABLED: "E-Mails sind für diesen Dienst deaktiviert.",
    IDENTITY_PROVIDER_STATE_INVALID:
      "Dieser Anmeldelink ist ungültig oder wurde schon benutzt. Bitte starte die Anmeldung erneut.",
    IDENTITY_PROVIDER_REJECTED:
      "Die Antwort des Identitätsanbieters konnte nicht angenommen werden. Bitte versuche es erneut.",
    IDENTITY_PROVIDER_MISMATCH: "Bitte melde dich mit dem Konto an, das mit diesem verknüpft ist.",
    IDENTITY_PROVIDER_EMAIL_NOT_VERIFIED:
      "Der Identitätsanbieter hat keine bestätigte E-Mail-Adresse übermittelt.",
    IDENTITY_PROVIDER_ACCOUNT_EXISTS:
      "Es gibt bereits ein Konto mit dieser E-Mail-Adresse. Melde dich dort an und verknüpfe den Anbieter in den Einstellungen.",
    IDENTITY_PROVIDER_ALREADY_LINKED: "Dieses Konto des Identitätsanbieters ist bereits verknüpft.",
    IDENTITY_PROVIDER_LAST_METHOD:
      "Dies ist die einzige Anmeldemöglichkeit des Kontos. Lege zuerst ein Passwort fest oder verknüpfe einen weiteren Anbieter.",
    IDENTITY_PROVIDER_FAILURE:
      "Der Identitätsanbieter ist gerade nicht erreichbar. Bitte versuche es später erneut.",
    PASSWORD_BREACHED: "Dieses Passwort taucht in einem bekannten Datenleck auf. Bitte wähle ein anderes.",
    BREACHED_PASSWORD_CHECK_FAILURE:
      "Das Passwort konnte gerade nicht geprüft werden. Bitte versuche es später noch einmal.",
    EMAIL_SIGN_IN_INVALID:
      "Dieser Anmeldelink oder Code ist ungültig, wurde schon verwendet oder ist abgelaufen. Bitte fordere einen neuen an.",
    EMAIL_SIGN_IN_THROTTLED: "Zu viele falsche Codes. Bitte fordere eine neue Anmelde-E-Mail an.",
    PASSWORD_NOT_SET:
      "Dieses Konto hat noch kein Passwort. Lege eines über den Link zum Zurücksetzen fest, der an deine E-Mail-Adresse geht.",
    EMAIL_CHANGE_TOKEN_INVALID:
      "Dieser Link zum Bestätigen einer neuen E-Mail-Adresse ist ungültig oder abgelaufen.",
    EMAIL_ADDRESS_TAKEN:
      "Diese E-Mail-Adresse gehört inzwischen zu einem anderen Konto. Deine Adresse wurde nicht geändert.",
    ACCOUNT_LOCKED: "Dieses Konto ist gesperrt. Bitte wende dich an den Support.",
    ADMIN_REQUIRED: "Dafür sind Administratorrechte nötig.",
    PASSWORD_CHANGE_REQUIRED: "Bitte wähle ein neues Passwort, um fortzufahren.",
    PASSWORD_CHANGE_TOKEN_INVALID: "Diese Passwortänderung ist abgelaufen. Bitte melde dich erneut an.",
    IMPERSONATION_NOT_ALLOWED: "Das ist nicht möglich, solange ein Administrator als du angemeldet ist.",
    LAST_SIGN_IN_METHOD:
      "Dies ist die letzte Anmeldemöglichkeit des Kontos. Füge zuerst ein Passwort, einen Passkey oder einen Identitätsanbieter hinzu.",
    PASSKEY_VERIFICATION_FAILED: "Der Passkey konnte nicht geprüft werden. Bitte versuche es erneut.",
    PASSKEY_CHALLENGE_INVALID:
      "Diese Passkey-Anfrage ist ungültig (bereits verwendet oder in einem anderen Browser begonnen). Bitte beginne erneut.",
    PASSKEY_CHALLENGE_EXPIRED: "Diese Passkey-Anfrage ist abgelaufen. Bitte beginne erneut.",
    PASSKEY_UNKNOWN: "Dieser Passkey ist hier bei keinem Konto registriert.",
    PASSKEY_ALREADY_REGISTERED: "Dieser Passkey ist bereits registriert.",
    PERMISSION_DENIED: "Dazu hast du in dieser Organisation keine Berechtigung.",
    NO_ACTIVE_ORGANIZATION: "Wähle zuerst eine Organisation aus, in der du arbeiten möchtest.",
    INVITATION_INVALID:
      "Diese Einladung ist ungültig: Sie wurde bereits verwendet, abgelehnt, zurückgezogen oder ist abgelaufen.",
    INVITATION_EMAIL_MISMATCH:
      "Diese Einladung ging an eine andere E-Mail-Adresse. Melde dich mit der eingeladenen Adresse an, um sie anzunehmen.",
    ORGANIZATION_SLUG_TAKEN: "Diese Organisationsadresse ist vergeben. Wähle eine andere.",
    LAST_OWNER: "Eine Organisation braucht einen Inhaber: Mache zuerst jemand anderen zum Inhaber.",
    ROLE_IN_USE: "Diese Rolle haben noch Mitglieder oder offene Einladungen vergeben sie.",
    ALREADY_MEMBER: "Diese Person ist bereits Mitglied der Organisation.",
    ORGANIZATION_NOT_FOUND: "Organisation nicht gefunden.",
    ORGANIZATION_LIMIT_REACHED: "Du gehörst bereits so vielen Organisationen an wie erlaubt.",
    CAPTCHA_REQUIRED: "Bitte bestätige, dass du kein Roboter bist.",
    CAPTCHA_INVALID: "Die Roboter-Prüfung ist fehlgeschlagen. Bitte versuche es erneut.",
    API_KEY_INVALID: "Dieser API-Schlüssel ist ungültig: falsch, abgelaufen oder gelöscht.",
    API_KEY_NOT_ALLOWED: "Mit einem API-Schlüssel geht das nicht: Melde dich stattdessen an.",
    API_KEY_RATE_LIMITED:
      "Dieser API-Schlüssel hat zu viele Anfragen gestellt. Versuche es in einer Minute erneut.",
    API_KEY_LIMIT_REACHED: "Es gibt bereits so viele API-Schlüssel wie erlaubt. Lösche zuerst einen.",
    WEBHOOK_LIMIT_REACHED: "Es gibt bereits so viele Webhook-Endpunkte wie erlaubt. Lösche zuerst einen.",
    SSO_REQUIRED: "Adressen dieser Domain melden sich über das Single Sign-on ihrer Organisation an.",
    SSO_DOMAIN_NOT_VERIFIED:
      "Die Domain dieser Adresse ist für das Single Sign-on der Organisation nicht bestätigt.",
    SSO_ASSERTION_INVALID:
      "Die Antwort des Identitätsanbieters wurde nicht angenommen. Starte die Anmeldung erneut.",
    SSO_DOMAIN_TAKEN: "Diese Domain gehört schon zu einer anderen Verbindung oder Organisation.",
    SSO_DOMAIN_CHECK_FAILED:
      "Der DNS-Eintrag wurde noch nicht gefunden. Lege ihn an und versuche es in ein paar Minuten erneut.",
    SSO_USER_DEACTIVATED:
      "Das Verzeichnis deiner Organisation hat dein Konto deaktiviert. Wende dich an deine IT-Abteilung.",
  },
  fieldErrors: {
    invalid: "Dieser Wert ist ungültig.",
    required: "Dieses Feld ist erforderlich.",
    not_string: "Muss Text sein.",
    not_boolean: "Muss true oder false sein.",
    not_number: "Muss eine Zahl sein.",
    not_integer: "Muss eine ganze Zahl sein.",
    too_small: "Muss mindestens {{minimum}} sein.",
    too_big: "Darf höchstens {{maximum}} sein.",
    invalid_cursor: "Ist kein Cursor dieser Liste.",
    not_object: "Muss ein Objekt sein.",
    not_array: "Muss eine Liste sein.",
    not_allowed: "Muss einer dieser Werte sein: {{options}}.",
    invalid_format: "Hat ein ungültiges Format.",
    too_short: "Muss mindestens {{minimum}} Zeichen lang sein.",
    too_long: "Darf höchstens {{maximum}} Zeichen lang sein.",
    too_few: "Muss mindestens {{minimum}} Einträge haben.",
    too_many: "Darf höchstens {{maximum}} Einträge haben.",
    invalid_email: "Bitte gib eine gültige E-Mail-Adresse ein.",
    email_taken: "Diese E-Mail-Adresse ist bereits registriert.",
    invalid_json: "Der Anfrageinhalt muss gültiges JSON sein.",
    invalid_return_to: "Muss ein Pfad auf dieser Website sein.",
    password_too_short: "Verwende mindestens {{minimum}} Zeichen.",
    password_too_long: "Verwende höchstens {{maximum}} Zeichen.",
    password_too_common: "Dieses Passwort ist zu verbreitet. Bitte wähle ein anderes.",
    password_breached: "Dieses Passwort taucht in einem bekannten Datenleck auf. Bitte wähle ein anderes.",
    email_unchanged: "Das ist bereits die E-Mail-Adresse des Kontos.",
    password_reused: "Muss sich vom bisherigen Passwort unterscheiden.",
    webhook_url_not_allowed:
      "Muss eine https-URL ohne Benutzername und Passwort sein, deren Host eine öffentliche Adresse ist.",
    unknown_event: "Ist kein Ereignis, das Portcullis sendet.",
    duplicate: "Ist doppelt aufgeführt.",
  },
  emails: {
    common: {
      greeting: "Hallo,",
      greetingName: "Hallo {{name}},",
      footer: "Du erhältst diese E-Mail wegen deines {{brand}}-Kontos ({{email}}).",
      linkFallback: "Falls die Schaltfläche nicht funktioniert, kopiere diesen Link in deinen Browser:",
      ignore: "Falls du das nicht angefordert hast, kannst du diese E-Mail ignorieren.",
    },
    "email-verification": {
      subject: "Bestätige deine E-Mail-Adresse für {{brand}}",
      heading: "Bestätige deine E-Mail-Adresse",
      intro: "Bitte bestätige, dass {{email}} deine E-Mail-Adresse ist.",
      button: "E-Mail-Adresse bestätigen",
      outro: "Der Link funktioniert einmal und läuft in {{hours}} Stunden ab.",
    },
    "password-reset": {
      subject: "Setze dein {{brand}}-Passwort zurück",
      heading: "Passwort zurücksetzen",
      intro: "Jemand hat angefordert, das Passwort des {{brand}}-Kontos für {{email}} zurückzusetzen.",
      button: "Neues Passwort wählen",
      outro:
        "Der Link funktioniert einmal und läuft in {{minutes}} Minuten ab. Eine neuere E-Mail macht diesen Link ungültig. Falls du das nicht angefordert hast, kannst du diese E-Mail ignorieren: dein Passwort bleibt unverändert.",
    },
    "no-principal-information": {
      subject: "Anfrage zum Zurücksetzen des Passworts bei {{brand}}",
      heading: "Kein Konto für diese Adresse",
      intro:
        "Jemand hat angefordert, das {{brand}}-Passwort für {{email}} zurückzusetzen, aber es gibt kein Konto mit dieser Adresse.",
      button: "Konto erstellen",
      outro: "Falls du ein Konto hast, hast du dich vielleicht mit einer anderen E-Mail-Adresse registriert.",
      subject_signIn: "Anmeldeanfrage bei {{brand}}",
      intro_signIn:
        "Jemand hat angefordert, sich bei {{brand}} per E-Mail mit {{email}} anzumelden, aber es gibt kein Konto mit dieser Adresse.",
    },
    "identity-provider-information": {
      subject: "So meldest du dich bei {{brand}} an",
      heading: "Dein Konto hat kein Passwort",
      intro:
        "Jemand hat versucht, sich mit einem Passwort für {{email}} bei {{brand}} anzumelden. Dieses Konto meldet sich über {{providers}} an.",
      button: "Passwort festlegen",
      outro:
        "Melde dich über {{providers}} an, oder lege ein Passwort fest, um dich auch mit deiner E-Mail-Adresse anzumelden.",
    },
    "login-alert": {
      subject: "Neue Anmeldung bei deinem {{brand}}-Konto",
      heading: "Neue Anmeldung",
      intro: "Bei deinem {{brand}}-Konto {{email}} hat sich gerade jemand angemeldet.",
      time: "Zeit",
      browser: "Browser",
      os: "Betriebssystem",
      ip: "IP-Adresse",
      unknown: "unbekannt",
      button: "Sicherheitseinstellungen prüfen",
      outro: "Falls du das nicht warst, ändere sofort dein Passwort und melde alle Sitzungen ab.",
    },
    "two-factor-code": {
      subject: "Dein {{brand}}-Anmeldecode: {{code}}",
      heading: "Dein Anmeldecode",
      intro: "Gib diesen Code ein, um die Anmeldung bei {{brand}} abzuschließen:",
      outro: "Der Code läuft in {{minutes}} Minuten ab. Gib ihn niemals weiter.",
      subject_setup: "Dein {{brand}}-Code zum Aktivieren der Codes per E-Mail: {{code}}",
      heading_setup: "Codes per E-Mail aktivieren",
      intro_setup:
        "Gib diesen Code ein, um Anmeldecodes per E-Mail für dein {{brand}}-Konto {{email}} zu aktivieren:",
      outro_setup:
        "Der Code läuft in {{minutes}} Minuten ab. Gib ihn niemals weiter. Falls du das nicht angefordert hast, ändere sofort dein Passwort.",
    },
    "password-changed": {
      subject: "Dein {{brand}}-Passwort wurde geändert",
      heading: "Dein Passwort wurde geändert",
      intro:
        "Das Passwort deines {{brand}}-Kontos {{email}} wurde gerade geändert, und alle Sitzungen wurden abgemeldet.",
      button: "Passwort zurücksetzen",
      outro: "Falls du es nicht geändert hast, setze dein Passwort sofort zurück.",
      intro_kept:
        "Das Passwort deines {{brand}}-Kontos {{email}} wurde gerade geändert, und alle anderen Sitzungen wurden abgemeldet.",
    },
    "registration-attempt": {
      subject: "Registrierungsversuch für dein {{brand}}-Konto",
      heading: "Du hast bereits ein Konto",
      intro:
        "Jemand hat versucht, ein {{brand}}-Konto für {{email}} zu erstellen, aber diese Adresse hat bereits eines.",
      button: "Anmelden",
      outro:
        "Passwort vergessen? Du kannst es auf der Anmeldeseite zurücksetzen. Falls du das nicht warst, kannst du diese E-Mail ignorieren.",
    },
    "recovery-code-used": {
      subject: "Ein Wiederherstellungscode wurde für dein {{brand}}-Konto verwendet",
      heading: "Ein Wiederherstellungscode wurde verwendet",
      intro_zero:
        "Mit einem Wiederherstellungscode hat sich gerade jemand bei deinem {{brand}}-Konto {{email}} angemeldet. Es war der letzte: Du hast keine Wiederherstellungscodes mehr.",
      intro_one:
        "Mit einem Wiederherstellungscode hat sich gerade jemand bei deinem {{brand}}-Konto {{email}} angemeldet. Du hast noch einen Wiederherstellungscode.",
      intro_other:
        "Mit einem Wiederherstellungscode hat sich gerade jemand bei deinem {{brand}}-Konto {{email}} angemeldet. Du hast noch {{count}} Wiederherstellungscodes.",
      button: "Sicherheitseinstellungen prüfen",
      outro:
        "Falls du das nicht warst, ändere sofort dein Passwort und melde alle Sitzungen ab. Wenn du die Zwei-Faktor-Authentifizierung neu einrichtest, erhältst du neue Wiederherstellungscodes.",
    },
    "two-factor-changed": {
      subject: "Zwei-Faktor-Authentifizierung deines {{brand}}-Kontos geändert",
      heading: "Zwei-Faktor-Authentifizierung geändert",
      intro: "Bei deinem {{brand}}-Konto {{email}}: {{change}}.",
      added: "{{method}} wurde aktiviert",
      removed: "{{method}} wurde deaktiviert",
      totp: "Die Anmeldung mit einer Authenticator-App",
      email: "Die Anmeldung mit einem Code per E-Mail",
      button: "Sicherheitseinstellungen prüfen",
      outro: "Falls du diese Änderung nicht vorgenommen hast, setze dein Passwort sofort zurück.",
    },
    "email-sign-in": {
      subject: "Bei {{brand}} anmelden mit dem Code {{code}}",
      heading: "Per E-Mail anmelden",
      intro:
        "Jemand hat angefordert, sich beim {{brand}}-Konto {{email}} per E-Mail anzumelden. Gib diesen Code ein oder nutze die Schaltfläche:",
      button: "Anmelden",
      outro:
        "Code und Link funktionieren einmal, gemeinsam, und laufen in {{minutes}} Minuten ab; eine neuere E-Mail macht sie ungültig. Gib sie niemandem weiter. Falls du das nicht angefordert hast, kannst du diese E-Mail ignorieren.",
    },
    "email-change": {
      subject: "Bestätige deine neue E-Mail-Adresse für {{brand}}",
      heading: "Bestätige deine neue E-Mail-Adresse",
      intro: "Jemand möchte die E-Mail-Adresse eines {{brand}}-Kontos in {{email}} ändern.",
      button: "Neue E-Mail-Adresse bestätigen",
      outro:
        "Der Link funktioniert einmal und läuft in {{hours}} Stunden ab. Bis zur Bestätigung behält das Konto seine alte Adresse. Falls du das nicht angefordert hast, kannst du diese E-Mail ignorieren.",
    },
    "email-changed": {
      subject: "Die E-Mail-Adresse deines {{brand}}-Kontos wurde geändert",
      heading: "Deine E-Mail-Adresse wurde geändert",
      intro:
        "Die E-Mail-Adresse deines {{brand}}-Kontos wurde gerade von {{email}} in {{newEmail}} geändert. Du meldest dich jetzt mit der neuen Adresse an.",
      outro:
        "Falls du diese Änderung nicht vorgenommen hast, hat womöglich jemand anderes Zugriff auf dein Konto: Antworte auf diese E-Mail oder wende dich sofort an den Dienst.",
    },
    "organization-invitation": {
      subject: "Einladung zu {{organization}} bei {{brand}}",
      heading: "Tritt {{organization}} bei",
      intro:
        "Du bist eingeladen, der Organisation {{organization}} bei {{brand}} als {{role}} beizutreten, mit dieser Adresse ({{email}}).",
      button: "Einladung annehmen",
      outro:
        "Der Link funktioniert einmal und läuft in {{hours}} Stunden ab. Nimm sie an, während du mit dieser bestätigten Adresse angemeldet bist. Falls du nicht beitreten möchtest, kannst du diese E-Mail ignorieren.",
    },
    "account-deleted": {
      subject: "Dein {{brand}}-Konto wurde gelöscht",
      heading: "Dein Konto wurde gelöscht",
      intro:
        "Dein {{brand}}-Konto {{email}} wurde gerade gelöscht, mit seinen Sitzungen und allem, was dazu gespeichert war.",
      outro:
        "Falls du es nicht gelöscht hast, hatte jemand anderes Zugriff auf dein Konto: Wende dich sofort an den Dienst. Du kannst jederzeit ein neues Konto mit dieser Adresse anlegen.",
    },
    "webhook-disabled": {
      subject: "Ein Webhook-Endpunkt bei {{brand}} wurde abgeschaltet",
      heading: "Ein Webhook-Endpunkt wurde abgeschaltet",
      intro:
        "Der Webhook-Endpunkt {{webhookUrl}}, den du angelegt hast, hat ein Ereignis über alle Wiederholungen hinweg nicht angenommen, daher sendet {{brand}} nicht mehr an ihn.",
      intro_gone:
        "Der Webhook-Endpunkt {{webhookUrl}}, den du angelegt hast, hat mit 410 Gone geantwortet, daher sendet {{brand}} nicht mehr an ihn.",
      outro:
        "Ereignisse, die geschehen, während er abgeschaltet ist, bleiben erhalten, solange das Audit-Log sie aufbewahrt. Sobald der Empfänger wieder funktioniert, schalte den Endpunkt in den Webhook-Einstellungen wieder ein: Er erhält dann, was er verpasst hat, in der richtigen Reihenfolge.",
    },
  },
};
