/** English strings. Every locale must have every key of this file (a test checks it). */
export const en = {
  errors: {
    EMAIL_ALREADY_VERIFIED: "This email address is already verified.",
    VALIDATION_FAILED: "The request is not valid.",
    PASSWORD_POLICY_VIOLATION: "The password does not meet the password rules.",
    TWO_FACTOR_DISABLED: "Two-factor authentication is not turned on for this account.",
    TWO_FACTOR_CODE_MISSING: "Enter the two-factor code.",
    ACCESS_TOKEN_EXPIRED: "Your session has expired. Please sign in again.",
    ACCESS_TOKEN_INVALID: "The access token is not valid.",
    AUTHENTICATION_REQUIRED: "Please sign in to continue.",
    INVALID_CREDENTIALS: "The email address or password is wrong.",
    REFRESH_TOKEN_INVALID: "Your session is no longer valid. Please sign in again.",
    TWO_FACTOR_TOKEN_INVALID: "The two-factor sign-in has expired. Please sign in again.",
    WRONG_TWO_FACTOR_CODE: "The two-factor code is wrong.",
    PASSWORD_RESET_TOKEN_INVALID: "This password reset link is not valid.",
    PASSWORD_RESET_TOKEN_EXPIRED: "This password reset link has expired. Please request a new one.",
    EMAIL_VERIFICATION_TOKEN_INVALID: "This verification link is not valid.",
    EMAIL_VERIFICATION_TOKEN_EXPIRED: "This verification link has expired. Please request a new one.",
    STEP_UP_REQUIRED: "Please confirm your password to change this setting.",
    SESSION_EXPIRED: "Your session has expired. Please sign in again.",
    CSRF_REJECTED: "The request was rejected because it came from another site.",
    USER_NOT_FOUND: "The account does not exist.",
    NOT_FOUND: "Not found.",
    PAYLOAD_TOO_LARGE: "The request body is too large.",
    UNSUPPORTED_MEDIA_TYPE: "The request body must be JSON (Content-Type: application/json).",
    EMAIL_COOLDOWN_ACTIVE:
      "An email was sent recently. Please wait {{remaining}} seconds before asking again.",
    LOGIN_THROTTLED: "Too many failed sign-in attempts. Please try again in {{remaining}} seconds.",
    TWO_FACTOR_THROTTLED: "Too many wrong codes. Please try again in {{remaining}} seconds.",
    RATE_LIMITED: "Too many requests from your network. Please try again in {{remaining}} seconds.",
    EMAIL_NOT_VERIFIED: "Please verify your email address first.",
    ACCESS_TOKEN_ALLOWLIST_READING_FAILURE: "Your session could not be checked. Please try again later.",
    DATABASE_FAILURE: "A storage error occurred. Please try again later.",
    DATABASE_ENCRYPTION_FAILURE: "A storage error occurred. Please try again later.",
    EMAIL_COOLDOWN_CACHE_FAILURE: "A storage error occurred. Please try again later.",
    EMAIL_AUTHENTICATION_FAILURE: "The email could not be sent right now. Please try again later.",
    EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE:
      "The verification email could not be prepared. Please try again later.",
    EMAIL_SEND_FAILURE: "The email could not be sent. Please try again later.",
    EMAIL_TEMPLATE_FAILURE: "The email could not be prepared. Please try again later.",
    INTERNAL_ERROR: "Something went wrong. Please try again later.",
    EMAIL_DISABLED: "Email is turned off for this service.",
    IDENTITY_PROVIDER_STATE_INVALID:
      "This sign-in link is not valid or was already used. Please start the sign-in again.",
    IDENTITY_PROVIDER_REJECTED: "The identity provider's answer could not be accepted. Please try again.",
    IDENTITY_PROVIDER_MISMATCH: "Please sign in with the account that is linked to this one.",
    IDENTITY_PROVIDER_EMAIL_NOT_VERIFIED: "The identity provider did not confirm a verified email address.",
    IDENTITY_PROVIDER_ACCOUNT_EXISTS:
      "An account with this email address already exists. Sign in to it and link the provider in the settings.",
    IDENTITY_PROVIDER_ALREADY_LINKED: "This identity provider account is already linked.",
    IDENTITY_PROVIDER_LAST_METHOD:
      "This is the account's only way to sign in. Set a password or link another provider first.",
    IDENTITY_PROVIDER_FAILURE: "The identity provider cannot be reached right now. Please try again later.",
    PASSWORD_BREACHED: "This password appears in a known data breach. Choose another one.",
    BREACHED_PASSWORD_CHECK_FAILURE: "The password could not be checked right now. Please try again later.",
    EMAIL_SIGN_IN_INVALID:
      "This sign-in link or code is not valid, was already used or has expired. Please ask for a new one.",
    EMAIL_SIGN_IN_THROTTLED: "Too many wrong codes. Please ask for a new sign-in email.",
    PASSWORD_NOT_SET:
      "This account has no password yet. Set one with the password reset link sent to your email address.",
    EMAIL_CHANGE_TOKEN_INVALID: "This link to confirm a new email address is not valid or has expired.",
    EMAIL_ADDRESS_TAKEN: "This email address now belongs to another account. Your address was not changed.",
    ACCOUNT_LOCKED: "This account is locked. Please contact support.",
    ADMIN_REQUIRED: "This needs an administrator.",
    PASSWORD_CHANGE_REQUIRED: "Please choose a new password to continue.",
    PASSWORD_CHANGE_TOKEN_INVALID: "This password change has expired. Please sign in again.",
    IMPERSONATION_NOT_ALLOWED: "This is not possible while an administrator is signed in as you.",
    LAST_SIGN_IN_METHOD:
      "This is the account's last way to sign in. Add a password, a passkey or an identity provider first.",
    PASSKEY_VERIFICATION_FAILED: "The passkey could not be verified. Please try again.",
    PASSKEY_CHALLENGE_INVALID:
      "This passkey request is not valid (used already, or started in another browser). Please start again.",
    PASSKEY_CHALLENGE_EXPIRED: "This passkey request has expired. Please start again.",
    PASSKEY_UNKNOWN: "This passkey is not registered to an account here.",
    PASSKEY_ALREADY_REGISTERED: "This passkey is registered already.",
    PERMISSION_DENIED: "You do not have permission to do this in this organization.",
    NO_ACTIVE_ORGANIZATION: "Choose an organization to work in first.",
    INVITATION_INVALID: "This invitation is not valid: it was used, declined, revoked or has expired.",
    INVITATION_EMAIL_MISMATCH:
      "This invitation was sent to another email address. Sign in with the invited address to accept it.",
    ORGANIZATION_SLUG_TAKEN: "This organization address is taken. Choose another one.",
    LAST_OWNER: "An organization needs an owner: make someone else owner first.",
    ROLE_IN_USE: "This role is still held by members or granted by pending invitations.",
    ALREADY_MEMBER: "This person is already a member of the organization.",
    ORGANIZATION_NOT_FOUND: "Organization not found.",
    ORGANIZATION_LIMIT_REACHED: "You belong to as many organizations as allowed.",
    CAPTCHA_REQUIRED: "Please confirm that you are not a robot.",
    CAPTCHA_INVALID: "The robot check did not pass. Please try it again.",
    API_KEY_INVALID: "This API key is not valid: it is wrong, expired or deleted.",
    API_KEY_NOT_ALLOWED: "An API key cannot do this: sign in instead.",
    API_KEY_RATE_LIMITED: "This API key made too many requests. Try again in a minute.",
    API_KEY_LIMIT_REACHED: "There are as many API keys as allowed. Delete one first.",
    WEBHOOK_LIMIT_REACHED: "There are as many webhook endpoints as allowed. Delete one first.",
    SSO_REQUIRED: "Addresses of this domain sign in through their organization's single sign-on.",
    SSO_DOMAIN_NOT_VERIFIED: "This address's domain is not verified for the organization's single sign-on.",
    SSO_ASSERTION_INVALID: "The identity provider's answer could not be accepted. Start the sign-in again.",
    SSO_DOMAIN_TAKEN: "This domain belongs to another connection or organization.",
    SSO_DOMAIN_CHECK_FAILED: "The DNS record was not found yet. Add it and try again in a few minutes.",
    SSO_USER_DEACTIVATED:
      "Your organization's directory has deactivated your account. Ask your IT department.",
  },
  /**
   * Field errors of `VALIDATION_FAILED` and `PASSWORD_POLICY_VIOLATION` (`errors[].message`), by
   * rule: one per zod issue kind the request schemas produce, and Portcullis's own rules. The
   * values (`{{expected}}`, `{{pattern}}` …) are machine-readable and stay as they are.
   */
  fieldErrors: {
    invalid: "This value is not valid.",
    required: "This field is required.",
    not_string: "Must be text.",
    not_boolean: "Must be true or false.",
    not_number: "Must be a number.",
    not_integer: "Must be a whole number.",
    too_small: "Must be at least {{minimum}}.",
    too_big: "Must be at most {{maximum}}.",
    invalid_cursor: "Is not a cursor of this list.",
    not_object: "Must be an object.",
    not_array: "Must be a list.",
    not_allowed: "Must be one of: {{options}}.",
    invalid_format: "Has an invalid format.",
    too_short: "Must be at least {{minimum}} characters.",
    too_long: "Must be at most {{maximum}} characters.",
    too_few: "Must have at least {{minimum}} items.",
    too_many: "Must have at most {{maximum}} items.",
    invalid_email: "Enter a valid email address.",
    email_taken: "This email address is already registered.",
    invalid_json: "The request body must be valid JSON.",
    invalid_return_to: "Must be a path on this site.",
    password_too_short: "Use at least {{minimum}} characters.",
    password_too_long: "Use at most {{maximum}} characters.",
    password_too_common: "This password is too common. Choose another one.",
    password_breached: "This password appears in a known data breach. Choose another one.",
    email_unchanged: "This is already the account's email address.",
    password_reused: "Must differ from the current password.",
    webhook_url_not_allowed:
      "Must be an https URL without a user name or password, whose host is a public address.",
    unknown_event: "Is not an event Portcullis sends.",
    duplicate: "Is listed twice.",
  },
  emails: {
    common: {
      greeting: "Hello,",
      greetingName: "Hello {{name}},",
      footer: "You received this email because of your {{brand}} account ({{email}}).",
      linkFallback: "If the button does not work, copy this link into your browser:",
      ignore: "If you did not ask for this, you can ignore this email.",
    },
    "email-verification": {
      subject: "Confirm your email address for {{brand}}",
      heading: "Confirm your email address",
      intro: "Please confirm that {{email}} is your email address.",
      button: "Confirm email address",
      outro: "The link works once and expires in {{hours}} hours.",
    },
    "password-reset": {
      subject: "Reset your {{brand}} password",
      heading: "Reset your password",
      intro: "Someone asked to reset the password of the {{brand}} account for {{email}}.",
      button: "Choose a new password",
      outro:
        "The link works once and expires in {{minutes}} minutes. A newer email makes this link invalid. If you did not ask for this, you can ignore this email: your password stays as it is.",
    },
    "no-principal-information": {
      subject: "Password reset request for {{brand}}",
      heading: "No account for this address",
      intro:
        "Someone asked to reset the {{brand}} password for {{email}}, but there is no account with this address.",
      button: "Create an account",
      outro: "If you have an account, you may have signed up with a different email address.",
      // A sign-in by email asked for an address without an account (i18next context `signIn`).
      subject_signIn: "Sign-in request for {{brand}}",
      intro_signIn:
        "Someone asked to sign in to {{brand}} by email with {{email}}, but there is no account with this address.",
    },
    "identity-provider-information": {
      subject: "How to sign in to {{brand}}",
      heading: "Your account has no password",
      intro:
        "Someone tried to sign in to {{brand}} with a password for {{email}}. This account signs in with {{providers}}.",
      button: "Set a password",
      outro: "Use the sign-in with {{providers}}, or set a password to sign in with your email address too.",
    },
    "login-alert": {
      subject: "New sign-in to your {{brand}} account",
      heading: "New sign-in",
      intro: "Your {{brand}} account {{email}} was just signed in to.",
      time: "Time",
      browser: "Browser",
      os: "Operating system",
      ip: "IP address",
      unknown: "unknown",
      button: "Review security settings",
      outro: "If this was not you, change your password at once and sign out of all sessions.",
    },
    "two-factor-code": {
      subject: "Your {{brand}} sign-in code: {{code}}",
      heading: "Your sign-in code",
      intro: "Enter this code to finish signing in to {{brand}}:",
      outro: "The code expires in {{minutes}} minutes. Never share it with anyone.",
      // The code that turns codes by email on (i18next context `setup`).
      subject_setup: "Your {{brand}} code to turn on codes by email: {{code}}",
      heading_setup: "Turn on codes by email",
      intro_setup: "Enter this code to turn on sign-in codes by email for your {{brand}} account {{email}}:",
      outro_setup:
        "The code expires in {{minutes}} minutes. Never share it with anyone. If you did not ask for this, change your password at once.",
    },
    "password-changed": {
      subject: "Your {{brand}} password was changed",
      heading: "Your password was changed",
      intro:
        "The password of your {{brand}} account {{email}} was just changed, and every session was signed out.",
      button: "Reset your password",
      outro: "If you did not change it, reset your password at once.",
      // A change by the signed-in user (i18next context `kept`): their own session stays.
      intro_kept:
        "The password of your {{brand}} account {{email}} was just changed, and every other session was signed out.",
    },
    "registration-attempt": {
      subject: "Sign-up attempt for your {{brand}} account",
      heading: "You already have an account",
      intro: "Someone tried to create a {{brand}} account for {{email}}, but this address already has one.",
      button: "Sign in",
      outro:
        "Forgot your password? You can reset it on the sign-in page. If this was not you, you can ignore this email.",
    },
    "recovery-code-used": {
      subject: "A recovery code was used for your {{brand}} account",
      heading: "A recovery code was used",
      intro_zero:
        "A recovery code was just used to sign in to your {{brand}} account {{email}}. It was the last one: no recovery codes are left.",
      intro_one:
        "A recovery code was just used to sign in to your {{brand}} account {{email}}. One recovery code is left.",
      intro_other:
        "A recovery code was just used to sign in to your {{brand}} account {{email}}. {{count}} recovery codes are left.",
      button: "Review security settings",
      outro:
        "If this was not you, change your password at once and sign out of all sessions. Setting up two-factor authentication again gives you a new set of recovery codes.",
    },
    "two-factor-changed": {
      subject: "Two-factor authentication changed on your {{brand}} account",
      heading: "Two-factor authentication changed",
      intro: "On your {{brand}} account {{email}}: {{change}}.",
      added: "{{method}} was turned on",
      removed: "{{method}} was turned off",
      totp: "Sign-in with an authenticator app",
      email: "Sign-in with a code by email",
      button: "Review security settings",
      outro: "If you did not make this change, reset your password at once.",
    },
    "email-sign-in": {
      subject: "Sign in to {{brand}} with code {{code}}",
      heading: "Sign in by email",
      intro:
        "Someone asked to sign in to the {{brand}} account {{email}} by email. Enter this code, or use the button:",
      button: "Sign in",
      outro:
        "The code and the link work once, together, and expire in {{minutes}} minutes; a newer email makes them invalid. Never share them with anyone. If you did not ask for this, you can ignore this email.",
    },
    "email-change": {
      subject: "Confirm your new email address for {{brand}}",
      heading: "Confirm your new email address",
      intro: "Someone asked to change the email address of a {{brand}} account to {{email}}.",
      button: "Confirm new email address",
      outro:
        "The link works once and expires in {{hours}} hours. Until you confirm, the account keeps its old address. If you did not ask for this, you can ignore this email.",
    },
    "email-changed": {
      subject: "The email address of your {{brand}} account was changed",
      heading: "Your email address was changed",
      intro:
        "The email address of your {{brand}} account was just changed from {{email}} to {{newEmail}}. You now sign in with the new address.",
      outro:
        "If you did not make this change, someone else may have access to your account: reply to this email or contact the service at once.",
    },
    "organization-invitation": {
      subject: "You are invited to join {{organization}} on {{brand}}",
      heading: "Join {{organization}}",
      intro:
        "You are invited to join the organization {{organization}} on {{brand}} as {{role}}, at this address ({{email}}).",
      button: "Accept the invitation",
      outro:
        "The link works once and expires in {{hours}} hours. Accept it signed in with this address, verified. If you do not want to join, you can ignore this email.",
    },
    "account-deleted": {
      subject: "Your {{brand}} account was deleted",
      heading: "Your account was deleted",
      intro:
        "Your {{brand}} account {{email}} was just deleted, with its sessions and everything stored about it.",
      outro:
        "If you did not delete it, someone else had access to your account: contact the service at once. You can create a new account with this address at any time.",
    },
    "webhook-disabled": {
      subject: "A webhook endpoint on {{brand}} was turned off",
      heading: "A webhook endpoint was turned off",
      intro:
        "The webhook endpoint {{webhookUrl}}, which you created, kept refusing one event through every retry, so {{brand}} stopped sending to it.",
      intro_gone:
        "The webhook endpoint {{webhookUrl}}, which you created, answered 410 Gone, so {{brand}} stopped sending to it.",
      outro:
        "Events that happen while it is off are kept, as long as the audit log keeps them. Once the receiver works again, turn the endpoint back on in the webhook settings: it then receives what it missed, in order.",
    },
  },
};

export type Strings = typeof en;
