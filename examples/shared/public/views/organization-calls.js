// The calls of the organization pages. The auth routes of organizations are in the client's route
// table: `request` gives the error codes and the page's language, refreshes a session whose access
// token has lapsed (before the call or on its 401), and takes an activation's new access token as a
// refresh's. The demo routes of the app (`/api/projects`) are the
// host's own: the client's `fetch` sends them the session's cookies and refreshes on a 401.
import { auth } from "../ui/client.js";
import { currentLanguage } from "../ui/strings.js";

/** An organization route of the auth API by `"METHOD /path"`, with `params`, `query` and `body`. */
export function orgCall(key, init = {}) {
  return auth.request(key, init);
}

/**
 * `GET` or `POST /api/projects` as the signed-in user: `{ status, organizationId }` when the app
 * allowed it, `{ status, code }` when it refused (the JSON error's code). Rejects only when no
 * answer came.
 */
export async function callProjects(method) {
  const response = await auth.fetch("/api/projects", {
    method,
    headers: { accept: "application/json", "accept-language": currentLanguage() },
  });
  const body = await response.json().catch(() => ({}));
  return response.ok
    ? { status: response.status, organizationId: body.organizationId ?? "" }
    : { status: response.status, code: typeof body.code === "string" ? body.code : "" };
}
