/**
 * The absolute URL on `appOrigin` the browser is sent to: `path` (a `returnTo` as checked, or
 * `""` for `appOrigin` itself) with `extra` query parameters set. The final URL is checked: if it
 * is not on `appOrigin`'s origin (a path that resolves to `//host`, whatever let it through), the
 * browser goes to `appOrigin` itself instead, so no redirect of the HTTP layer ever leaves it.
 */
export function appUrlFor(
  appOrigin: string | undefined,
  path: string,
  extra: Readonly<Record<string, string>> = {},
): string {
  const base = new URL(appOrigin ?? "http://localhost");
  const resolved = URL.canParse(path, base.href) ? new URL(path, base) : base;
  const url = resolved.origin === base.origin ? resolved : base;
  for (const [key, value] of Object.entries(extra)) url.searchParams.set(key, value);
  return url.href;
}
