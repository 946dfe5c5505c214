/**
 * When an access token expires, from its `exp` claim, as an ISO time (the `accessTokenExpiresAt`
 * of the sign-in and refresh answers); null when the token cannot be read. The token is ours and
 * was just signed: this only reads it, it checks nothing.
 */
export function accessTokenExpiresAt(token: string): string | null {
  const payload = token.split(".")[1];
  if (!payload) return null;
  try {
    const json = atob(payload.replace(/-/g, "+").replace(/_/g, "/"));
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === "number" && Number.isFinite(exp) ? new Date(exp * 1000).toISOString() : null;
  } catch {
    return null;
  }
}
