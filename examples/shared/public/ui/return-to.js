// Where a sign-in goes back to. A page opened while signed out (the OAuth provider's
// authorization endpoint, the consent page, the device page) sends the browser to
// `/login?returnTo=<path>`; `reauth=1` asks for a sign-in even when signed in (the provider's
// `prompt=login` or `max_age`). The path is checked (this origin only) and kept for this tab while
// the sign-in lasts, through a second step or an identity provider's round trip, for at most ten
// minutes; a completed sign-in goes there instead of the account (`goBack`). A signed-in visitor
// of /login with a path kept goes straight there (`forwardSignedIn`), once: a page that sends the
// browser back to the sign-in at once (its cookie refused) then gets the sign-in form instead.

const KEY = "portcullis-return-to";
/** How long a kept path waits for its sign-in: the provider's consent request lasts as long. */
const LIFETIME_MS = 10 * 60_000;
/** A second forward within this time means the page sent the browser straight back. */
const LOOP_MS = 10_000;
/** A path as a redirect may carry it: one leading `/` (not `//` or `/\`), no space, backslash or control character. */
const PLAIN_PATH = /^\/(?![/\\])[^\s\\\p{Cc}\p{Cf}]*$/u;

/**
 * `value` as a path of this origin (normalized: dot segments resolved), or null for anything
 * else: another origin, `//host`, a backslash trick, a scheme, over 1024 characters, or the sign-in
 * page itself. The same rule as the server's `returnTo` (core's parseReturnTo).
 */
export function checkedReturnTo(value) {
  if (typeof value !== "string" || value.length > 1024 || !PLAIN_PATH.test(value)) return null;
  const target = new URL(value, location.origin);
  if (target.origin !== location.origin || target.pathname === "/login") return null;
  const path = `${target.pathname}${target.search}${target.hash}`;
  return path.length <= 1024 && PLAIN_PATH.test(path) ? path : null;
}

/** The kept path `{ path, reauth, until, forwardedAt }`, or null (none, expired or unusable). */
function read() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEY) ?? "null");
    if (kept && Date.now() < kept.until && checkedReturnTo(kept.path) === kept.path) return kept;
  } catch {
    // Unreadable: as if none was kept.
  }
  return null;
}
const write = (kept) => sessionStorage.setItem(KEY, JSON.stringify(kept));

/** Keeps `path` (checked) for the sign-in that follows; `reauth`: even when signed in. */
export function keepReturnTo(path, reauth = false) {
  const checked = checkedReturnTo(path);
  if (!checked) return;
  const before = read();
  const forwardedAt = before?.path === checked ? before.forwardedAt : undefined;
  write({ path: checked, reauth, until: Date.now() + LIFETIME_MS, forwardedAt });
}

export const forgetReturnTo = () => sessionStorage.removeItem(KEY);
/** The path a sign-in goes back to, or null. */
export const pendingReturnTo = () => read()?.path ?? null;
/** True while the kept path asks for a sign-in even when signed in (`reauth=1`). */
export const reauthAsked = () => read()?.reauth === true;

/** The sign-in page's URL that comes back to the page now shown (which is kept). */
export function signInToComeBack() {
  const here = `${location.pathname}${location.search}`;
  keepReturnTo(here);
  return `/login?returnTo=${encodeURIComponent(here)}`;
}

/** After a completed sign-in: to the kept path (forgotten then), true; false when none is kept. */
export function goBack() {
  const kept = read();
  forgetReturnTo();
  if (!kept) return false;
  location.assign(kept.path);
  return true;
}

/**
 * A signed-in visitor of /login with a path kept (not `reauth`): straight there, true. A second
 * forward within seconds asks for the sign-in form instead (the page did not see the session).
 */
export function forwardSignedIn() {
  const kept = read();
  if (!kept || kept.reauth) return false;
  if (kept.forwardedAt !== undefined && Date.now() - kept.forwardedAt < LOOP_MS) {
    write({ ...kept, reauth: true });
    return false;
  }
  write({ ...kept, forwardedAt: Date.now() });
  location.assign(kept.path);
  return true;
}

// The sign-in page as the browser opened it: `returnTo` (and `reauth`) keep a path; `resume` (back
// from an identity provider) or `twoFactor` (its second step) keep the one kept before; a plain
// visit forgets it.
if (location.pathname === "/login") {
  const query = new URLSearchParams(location.search);
  const asked = checkedReturnTo(query.get("returnTo"));
  if (asked) keepReturnTo(asked, query.get("reauth") === "1");
  else if (!query.has("resume") && !query.has("twoFactor")) forgetReturnTo();
}
