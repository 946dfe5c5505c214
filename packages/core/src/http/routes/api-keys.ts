import { createApiKeyInput } from "../../api-keys/views.js";
import type { Auth } from "../../create-auth/create-auth.js";
import { errorsOf } from "../../use-case-errors.js";
import { jsonResponse } from "../respond.js";
import type { Route } from "../route.js";
import { json, param, route, signedInCall, stepUpCall } from "../route-kit.js";

/**
 * API keys (docs/api-keys.md): mounted only while `apiKeys` is configured (else every path answers
 * 404 as an unknown one). They take an access token, never a key (`API_KEY_NOT_ALLOWED`); a new
 * key needs a step-up, and is in its answer only.
 */
export function apiKeyRoutes(auth: Auth): Route[] {
  const api = auth.apiKeys;
  return [
    route(
      {
        method: "POST",
        path: "/api-keys",
        summary: "A new API key of the caller, or of an organization (api-key:manage); the key is shown once",
        auth: "step-up",
        body: createApiKeyInput,
        errors: errorsOf("apiKeys.create"),
        successStatus: 201,
      },
      async (input) => jsonResponse(201, await api.create(stepUpCall(input), await input.body())),
    ),
    json(
      {
        method: "GET",
        path: "/api-keys",
        summary: "The caller's API keys, or an organization's (api-key:manage), newest first",
        auth: "access",
        query: ["organizationId"],
        errors: errorsOf("apiKeys.list"),
      },
      (input) =>
        api.list(signedInCall(input), { organizationId: input.query.get("organizationId") ?? undefined }),
    ),
    json(
      {
        method: "DELETE",
        path: "/api-keys/:id",
        summary: "Delete an API key: refused everywhere at once",
        auth: "access",
        errors: errorsOf("apiKeys.delete"),
      },
      (input) => api.delete(signedInCall(input), param(input, "id")),
    ),
  ];
}
