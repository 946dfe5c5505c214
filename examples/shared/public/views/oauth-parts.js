// What the OAuth provider's pages share (views/oauth-consent.js, views/device.js,
// views/authorized-apps.js, views/oauth-clients.js): calls of the provider's routes with the
// session, whether the provider is on, and a list of scopes in words. The provider's routes
// answer RFC 6749 errors (`{ error, error_description }`), not the API's codes, so the pages say
// their own words for them.
import "../ui/strings-oauth.js";
import { auth } from "../ui/client.js";
import { element } from "../ui/page.js";
import { scopeWords } from "../ui/strings-oauth.js";

/** A refused call of a provider route: its HTTP status and RFC 6749 `error` (0 and "" when no answer came). */
export class OAuthCallError extends Error {
  constructor(status, error) {
    super(error || `HTTP ${status}`);
    this.status = status;
    this.error = error;
  }
}

/**
 * Calls `method <prefix><path>` with the session (`auth.fetch`: the cookies, refreshed when the
 * access token runs out) and a JSON `body`: the answer's JSON, or an `OAuthCallError`.
 */
export async function oauthCall(method, path, body) {
  let response;
  try {
    response = await auth.fetch(`/api/auth${path}`, {
      method,
      headers: {
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new OAuthCallError(0, "");
  }
  const json = await response.json().catch(() => ({}));
  if (!response.ok)
    throw new OAuthCallError(response.status, typeof json.error === "string" ? json.error : "");
  return json;
}

/** Whether the server runs the OAuth provider (`GET /ui/config`, OAUTH_PROVIDER), asked once per page load. */
let providerOn;
export const isProviderOn = () => {
  providerOn ??= fetch("/ui/config")
    .then((reply) => reply.json())
    .then((config) => config.oauthProvider === true)
    .catch(() => false);
  return providerOn;
};

/** The scopes an app asks for, one item each, in the page's words (an unknown one by its name). */
export const scopeItems = (scopes) =>
  scopes.map((scope) => {
    const item = element("li", { textContent: scopeWords(scope) });
    item.dataset.scope = scope;
    return item;
  });
