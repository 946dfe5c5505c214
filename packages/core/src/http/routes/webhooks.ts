import type { Auth } from "../../create-auth/create-auth.js";
import type { Call } from "../../model.js";
import { errorsOf, type UseCaseName } from "../../use-case-errors.js";
import { createWebhookInput, updateWebhookInput } from "../../webhooks/views.js";
import { jsonResponse } from "../respond.js";
import type { Route, RouteAuth, RouteInput, RouteSpec } from "../route.js";
import { adminCall, param, route, signedInCall, stepUpCall } from "../route-kit.js";

/** The part after `webhooks.` of a `USE_CASE_ERRORS` key. */
type WebhookMethod = UseCaseName extends infer N ? (N extends `webhooks.${infer M}` ? M : never) : never;

/** Where the routes of one scope are mounted, and how its calls are made. */
interface Scope {
  /** `/organizations/:id` or `/admin`. */
  prefix: string;
  /** Whose endpoints: the organization's (with `webhook:manage`), or the deployment's (the back office). */
  whose: string;
  /** The auth of a route that reads or changes; of one that shows a new secret. */
  auth: { plain: RouteAuth; secret: RouteAuth };
  /** The call of a route with `auth` of this scope. */
  call: (input: RouteInput, secret: boolean) => Call;
  /** The organization of the path (`:id`), or undefined for the deployment. */
  organizationId: (input: RouteInput) => string | undefined;
}

const ORGANIZATION: Scope = {
  prefix: "/organizations/:id",
  whose: "the organization's (webhook:manage)",
  auth: { plain: "access", secret: "step-up" },
  call: (input, secret) =>
    secret ? stepUpCall(input as RouteInput<"step-up">) : signedInCall(input as RouteInput<"access">),
  organizationId: (input) => param(input, "id"),
};

const DEPLOYMENT: Scope = {
  prefix: "/admin",
  whose: "the deployment's",
  auth: { plain: "admin", secret: "admin" },
  call: (input) => adminCall(input as RouteInput<"admin">),
  organizationId: () => undefined,
};

/** The body as an object to merge the scope into (anything else is the use case's to refuse). */
const bodyWith = async (input: RouteInput, scope: Record<string, string | undefined>): Promise<unknown> => {
  const body = await input.body<unknown>();
  // The path names the scope: a body's own `organizationId` is overwritten, never used.
  return typeof body === "object" && body !== null && !Array.isArray(body) ? { ...body, ...scope } : body;
};

/** The ids of a route's path: the scope's organization (if any) and the endpoint (if any). */
type Ids = { organizationId: string | undefined; endpointId: string };
/** What a route of the scope runs: its use case with the scope's call. */
type Run = (call: Call, input: RouteInput, ids: Ids) => Promise<unknown>;
/** A route of the scope: its spec (the auth and errors come from the scope and the use case). */
type Make = (
  spec: Omit<RouteSpec, "auth" | "errors">,
  useCase: WebhookMethod,
  run: Run,
  secret?: boolean,
) => Route;

/** The route maker of `scope`: a route that shows a new secret gets the scope's stricter auth. */
function routeMaker(scope: Scope): Make {
  return (spec, useCase, run, secret = false) =>
    route(
      {
        ...spec,
        auth: secret ? scope.auth.secret : scope.auth.plain,
        errors: errorsOf(`webhooks.${useCase}`),
      },
      async (input) => {
        const ids = { organizationId: scope.organizationId(input), endpointId: param(input, "endpointId") };
        return jsonResponse(spec.successStatus ?? 200, await run(scope.call(input, secret), input, ids));
      },
    );
}

/**
 * The webhook routes of one scope (docs/webhooks.md): create (201; the secret is shown once),
 * list, change, delete, rotate the secret, then an endpoint's deliveries.
 */
function webhookRoutes(auth: Auth, scope: Scope): Route[] {
  const api = auth.webhooks;
  const make = routeMaker(scope);
  const base = `${scope.prefix}/webhooks`;
  const one = `${base}/:endpointId`;
  const whose = scope.whose;
  return [
    make(
      {
        method: "POST",
        path: base,
        summary: `A new webhook endpoint of ${whose}; its secret is shown once`,
        body: createWebhookInput,
        successStatus: 201,
      },
      "create",
      async (call, input, { organizationId }) =>
        api.create(call, (await bodyWith(input, { organizationId })) as never),
      true,
    ),
    make(
      { method: "GET", path: base, summary: `The webhook endpoints of ${whose}, oldest first` },
      "list",
      (call, _input, { organizationId }) => api.list(call, { organizationId }),
    ),
    make(
      {
        method: "PATCH",
        path: one,
        summary: "Change an endpoint's events, or turn it on (after it was turned off) or off",
        body: updateWebhookInput,
      },
      "update",
      async (call, input, ids) => api.update(call, (await bodyWith(input, ids)) as never),
    ),
    make(
      { method: "DELETE", path: one, summary: "Delete an endpoint with its deliveries" },
      "delete",
      (call, _input, ids) => api.delete(call, ids),
    ),
    make(
      {
        method: "POST",
        path: `${one}/rotate-secret`,
        summary: "A new signing secret, shown once; the old one keeps signing for 24 hours",
      },
      "rotateSecret",
      (call, _input, ids) => api.rotateSecret(call, ids),
      true,
    ),
    ...deliveryRoutes(auth, make, one),
  ];
}

/** An endpoint's deliveries: the list, and a redelivery of one (202). */
function deliveryRoutes(auth: Auth, make: Make, one: string): Route[] {
  const api = auth.webhooks;
  return [
    make(
      {
        method: "GET",
        path: `${one}/deliveries`,
        summary:
          "An endpoint's deliveries and their attempts, newest first (before: the last id of the previous page)",
        query: ["limit", "before"],
      },
      "listDeliveries",
      (call, input, ids) =>
        api.listDeliveries(call, {
          ...ids,
          limit: input.query.get("limit") ?? undefined,
          before: input.query.get("before") ?? undefined,
        }),
    ),
    make(
      {
        method: "POST",
        path: `${one}/deliveries/:deliveryId/redeliver`,
        summary: "Send one of the endpoint's messages again, once",
        successStatus: 202,
      },
      "redeliver",
      (call, input, ids) => api.redeliver(call, { ...ids, deliveryId: param(input, "deliveryId") }),
    ),
  ];
}

/** The organizations' webhook routes, under `/organizations/:id/webhooks`. */
export function organizationWebhookRoutes(auth: Auth): Route[] {
  return webhookRoutes(auth, ORGANIZATION);
}

/** The deployment's webhook routes, under `/admin/webhooks` (the back office). */
export function adminWebhookRoutes(auth: Auth): Route[] {
  return webhookRoutes(auth, DEPLOYMENT);
}
