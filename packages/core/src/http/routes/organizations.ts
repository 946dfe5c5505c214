import type { Auth } from "../../create-auth/create-auth.js";
import type { Call } from "../../model.js";
import {
  createOrganizationInput,
  createRoleInput,
  invitationInput,
  invitationTokenInput,
  memberRoleInput,
  updateOrganizationInput,
  updateRoleInput,
} from "../../organizations/inputs.js";
import { errorsOf, type UseCaseName } from "../../use-case-errors.js";
import { jsonResponse } from "../respond.js";
import type { Route, RouteInput, RouteSpec } from "../route.js";
import { adminCall, json, param, type RouteKit, route, signedInCall, stepUpCall } from "../route-kit.js";
import { accessTokenExpiresAt } from "../token-expiry.js";

/** The part after `organizations.` of a `USE_CASE_ERRORS` key. */
type MethodOf<N> = N extends `organizations.${infer M}` ? M : never;
/** A method of `auth.organizations`. */
type OrganizationMethod = MethodOf<UseCaseName>;

/** The spec of a signed-in organization route; its errors are those of `auth.organizations[useCase]`. */
function spec(
  method: RouteSpec["method"],
  path: string,
  summary: string,
  useCase: OrganizationMethod,
  extra: Pick<RouteSpec, "body" | "query" | "successStatus"> = {},
): RouteSpec<"access"> {
  return { method, path, summary, auth: "access", errors: errorsOf(`organizations.${useCase}`), ...extra };
}

/** A signed-in route answering its use case's result with the spec's `successStatus` (200 unless said). */
function member(
  routeSpec: RouteSpec<"access">,
  run: (call: Call, input: RouteInput<"access">) => Promise<unknown>,
): Route {
  const status = routeSpec.successStatus ?? 200;
  return route(routeSpec, async (input) => jsonResponse(status, await run(signedInCall(input), input)));
}

/** The organization id of a route (`:id`). */
const organizationParam = (input: RouteInput) => param(input, "id");

/** The input of a use case that changes something of the organization: its id and the body. */
const organizationBody = async (input: RouteInput) => ({
  organizationId: organizationParam(input),
  body: await input.body(),
});

/**
 * Organizations (docs/organizations.md): mounted only while `organizations` is configured (else
 * every path answers 404 as an unknown one). Every route needs an access token; a non-member of
 * the organization gets 404 `ORGANIZATION_NOT_FOUND`, a member without the permission 403.
 */
export function organizationRoutes(auth: Auth, kit: RouteKit): Route[] {
  return [
    ...organizationOwnRoutes(auth, kit),
    ...memberRoutes(auth),
    ...invitationRoutes(auth),
    ...roleRoutes(auth),
  ];
}

/** The organization itself: create, list, read, change, delete, activate. */
function organizationOwnRoutes(auth: Auth, kit: RouteKit): Route[] {
  const api = auth.organizations;
  return [
    member(
      spec("POST", "/organizations", "Create an organization; the caller becomes its owner", "create", {
        body: createOrganizationInput,
        successStatus: 201,
      }),
      async (call, input) => api.create(call, await input.body()),
    ),
    member(
      spec("GET", "/organizations", "The caller's organizations and their role in each", "list"),
      (call) => api.list(call),
    ),
    member(
      spec("GET", "/organizations/:id", "An organization, the caller's role and permissions in it", "get"),
      (call, input) => api.get(call, organizationParam(input)),
    ),
    member(
      spec(
        "PATCH",
        "/organizations/:id",
        "Rename the organization or change its slug (organization:update)",
        "update",
        { body: updateOrganizationInput },
      ),
      async (call, input) => api.update(call, await organizationBody(input)),
    ),
    json(
      {
        method: "DELETE",
        path: "/organizations/:id",
        summary: "Delete the organization with its members, roles and invitations (owners, with a step-up)",
        auth: "step-up",
        errors: errorsOf("organizations.delete"),
      },
      (input) => api.delete(stepUpCall(input), organizationParam(input)),
    ),
    activateRoute(auth, kit),
  ];
}

/**
 * POST /organizations/:id/activate: the session works in the organization from now on; a new
 * access token naming it, in the body (with header authentication) and its cookie.
 */
function activateRoute(auth: Auth, { cookies, exposeTokens }: RouteKit): Route {
  const path = "/organizations/:id/activate";
  return route(
    spec("POST", path, "Make it the session's active organization: a new access token naming it", "activate"),
    async (input) => {
      const result = await auth.organizations.activate(signedInCall(input), organizationParam(input));
      const ttl = result.rememberMe ? auth.options.accessTokenTtlSeconds : undefined;
      return jsonResponse(
        200,
        {
          user: result.user,
          accessToken: exposeTokens ? result.accessToken : null,
          refreshToken: null,
          accessTokenExpiresAt: accessTokenExpiresAt(result.accessToken),
          activeOrganization: result.activeOrganization,
        },
        [cookies.set("access", result.accessToken, ttl)],
      );
    },
  );
}

/** Members: list, change a role, remove (or leave). */
function memberRoutes(auth: Auth): Route[] {
  const api = auth.organizations;
  const target = (input: RouteInput) => ({
    organizationId: organizationParam(input),
    userId: param(input, "userId"),
  });
  return [
    member(
      spec(
        "GET",
        "/organizations/:id/members",
        "The members, oldest first, a page at a time",
        "listMembers",
        { query: ["cursor", "limit"] },
      ),
      (call, input) =>
        api.listMembers(call, {
          organizationId: organizationParam(input),
          cursor: input.query.get("cursor") ?? undefined,
          limit: input.query.get("limit") ?? undefined,
        }),
    ),
    member(
      spec(
        "PATCH",
        "/organizations/:id/members/:userId",
        "Give a member another role (member:update-role)",
        "changeMemberRole",
        { body: memberRoleInput },
      ),
      async (call, input) => api.changeMemberRole(call, { ...target(input), body: await input.body() }),
    ),
    member(
      spec(
        "DELETE",
        "/organizations/:id/members/:userId",
        "Remove a member (member:remove), or leave (your own id)",
        "removeMember",
      ),
      (call, input) => api.removeMember(call, target(input)),
    ),
  ];
}

/** Invitations: the organization's (send, list, revoke) and the caller's (list, accept, decline). */
function invitationRoutes(auth: Auth): Route[] {
  const api = auth.organizations;
  return [
    member(
      spec(
        "POST",
        "/organizations/:id/invitations",
        "Invite an address with a role by email (member:invite)",
        "invite",
        { body: invitationInput, successStatus: 201 },
      ),
      async (call, input) => api.invite(call, await organizationBody(input)),
    ),
    member(
      spec(
        "GET",
        "/organizations/:id/invitations",
        "The pending invitations (member:invite)",
        "listInvitations",
      ),
      (call, input) => api.listInvitations(call, organizationParam(input)),
    ),
    member(
      spec(
        "DELETE",
        "/organizations/:id/invitations/:invitationId",
        "Revoke an invitation (member:invite)",
        "revokeInvitation",
      ),
      (call, input) =>
        api.revokeInvitation(call, {
          organizationId: organizationParam(input),
          invitationId: param(input, "invitationId"),
        }),
    ),
    member(spec("GET", "/invitations", "The caller's pending invitations", "receivedInvitations"), (call) =>
      api.receivedInvitations(call),
    ),
    member(
      spec(
        "POST",
        "/invitations/accept",
        "Accept an invitation to the caller's verified address",
        "acceptInvitation",
        { body: invitationTokenInput },
      ),
      async (call, input) => api.acceptInvitation(call, await input.body()),
    ),
    member(
      spec(
        "POST",
        "/invitations/decline",
        "Decline an invitation to the caller's address",
        "declineInvitation",
        { body: invitationTokenInput },
      ),
      async (call, input) => api.declineInvitation(call, await input.body()),
    ),
  ];
}

/** Roles: the built-in and custom ones (role:manage). */
function roleRoutes(auth: Auth): Route[] {
  const api = auth.organizations;
  const role = (input: RouteInput) => ({
    organizationId: organizationParam(input),
    role: param(input, "role"),
  });
  return [
    member(
      spec("GET", "/organizations/:id/roles", "The built-in and custom roles (role:manage)", "listRoles"),
      (call, input) => api.listRoles(call, organizationParam(input)),
    ),
    member(
      spec(
        "POST",
        "/organizations/:id/roles",
        "Define a custom role from the declared permissions (role:manage)",
        "createRole",
        { body: createRoleInput, successStatus: 201 },
      ),
      async (call, input) => api.createRole(call, await organizationBody(input)),
    ),
    member(
      spec(
        "PATCH",
        "/organizations/:id/roles/:role",
        "Replace a custom role's permissions (role:manage)",
        "updateRole",
        { body: updateRoleInput },
      ),
      async (call, input) => api.updateRole(call, { ...role(input), body: await input.body() }),
    ),
    member(
      spec("DELETE", "/organizations/:id/roles/:role", "Remove a custom role (role:manage)", "deleteRole"),
      (call, input) => api.deleteRole(call, role(input)),
    ),
  ];
}

/** GET /admin/organizations: the back office's list, mounted with the back office and organizations both. */
export function adminOrganizationRoutes(auth: Auth): Route[] {
  return [
    json(
      {
        method: "GET",
        path: "/admin/organizations",
        summary:
          "Organizations by slug or name prefix (query), a page at a time (cursor: the previous page's nextCursor)",
        auth: "admin",
        errors: errorsOf("admin.listOrganizations"),
        query: ["query", "cursor", "limit"],
      },
      (input) =>
        auth.admin.listOrganizations(adminCall(input), {
          query: input.query.get("query") ?? undefined,
          cursor: input.query.get("cursor") ?? undefined,
          limit: input.query.get("limit") ?? undefined,
        }),
    ),
  ];
}
