/**
 * The error codes the provider answers with: RFC 6749 §5.2 and §4.1.2.1, RFC 6750 §3.1, RFC 7591
 * §3.2.2, RFC 8628 §3.5, RFC 8707 §2 and OpenID Connect Core §3.1.2.6. Any other string is allowed
 * (an extension's code), so the type names the usual ones without closing the list.
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "unsupported_token_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_token"
  | "insufficient_scope"
  | "invalid_client_metadata"
  | "invalid_redirect_uri"
  | "authorization_pending"
  | "slow_down"
  | "expired_token"
  | "login_required"
  | "consent_required"
  | "interaction_required"
  | "server_error"
  | "temporarily_unavailable"
  | (string & {});

/** The HTTP status of each code that is not 400. */
const STATUS_BY_ERROR: Readonly<Record<string, number>> = {
  invalid_client: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  server_error: 500,
  temporarily_unavailable: 503,
};

/** RFC 6749 allows these characters in `error_description`; any other becomes `?`. */
const NOT_IN_DESCRIPTION = /[^\x20\x21\x23-\x5B\x5D-\x7E]/g;

/**
 * A refusal in the shape OAuth answers it: the RFC 6749 `error` code, a description for the
 * developer (never shown to an end user, never naming a secret; RFC 6749 §5.2 allows printable
 * ASCII without the double quote and the backslash, and any other character becomes `?`), and
 * the HTTP status of the JSON response, 400 unless given (401 for `invalid_client` and
 * `invalid_token`, 403 for `insufficient_scope`, 500 for `server_error`, 503 for
 * `temporarily_unavailable`).
 * `JSON.stringify(error)` gives the response body, `{ error, error_description }`.
 */
export class OAuthError extends Error {
  /** The RFC 6749 code, e.g. `invalid_grant`. */
  readonly error: OAuthErrorCode;
  /** What went wrong, for the client's developer: the body's `error_description`. */
  readonly description: string;
  /** The HTTP status of the response. */
  readonly status: number;

  constructor(error: OAuthErrorCode, description: string, status?: number, options?: { cause?: unknown }) {
    super(`${error}: ${description}`, options);
    this.name = "OAuthError";
    this.error = error;
    this.description = description.replace(NOT_IN_DESCRIPTION, "?");
    this.status = status ?? STATUS_BY_ERROR[error] ?? 400;
  }

  /** The response body: `{ error, error_description }`. */
  toJSON(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}
