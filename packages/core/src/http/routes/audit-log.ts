import type { AuditExport } from "../../audit/export.js";
import type { Auth } from "../../create-auth/create-auth.js";
import { ValidationError } from "../../errors.js";
import { errorsOf } from "../../use-case-errors.js";
import { fieldIssue } from "../../validation.js";
import { jsonResponse, streamResponse } from "../respond.js";
import type { RequestInput, Route } from "../route.js";
import { adminCall, json, param, route, signedInCall } from "../route-kit.js";

/** The filters every audit-log route reads. */
const FILTERS = ["type", "actor", "from", "to"] as const;
/** The content types an export streams (OpenAPI). */
const EXPORT_TYPES = ["application/x-ndjson", "text/csv"] as const;

/** The query's filters (and `organizationId` when `names` has it), absent ones left out. */
function filtersOf(input: RequestInput, names: readonly string[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of names) {
    const value = input.query.get(name);
    if (value !== null) found[name] = value;
  }
  return found;
}

/** `format`: absent (a JSON page), `ndjson` or `csv` (an export); `VALIDATION_FAILED` at `format` otherwise. */
function formatOf(input: RequestInput): "ndjson" | "csv" | undefined {
  const format = input.query.get("format");
  if (format === null || format === "" || format === "json") return undefined;
  if (format === "ndjson" || format === "csv") return format;
  throw new ValidationError([fieldIssue("format", "invalid")]);
}

const exported = (result: AuditExport) => streamResponse(result.contentType, result.filename, result.chunks);

/**
 * GET /organizations/:id/audit-log: the organization's audit log (`audit:read`), a JSON page, or
 * with `format=ndjson|csv` an export streamed as a file. Mounted with organizations and
 * `stores.auditLog`.
 */
export function organizationAuditLogRoutes(auth: Auth): Route[] {
  const names = [...FILTERS, "cursor", "limit"];
  return [
    route(
      {
        method: "GET",
        path: "/organizations/:id/audit-log",
        summary:
          "The organization's audit log, newest first, a page at a time; format=ndjson or format=csv streams an export, oldest first (audit:read)",
        auth: "access",
        errors: errorsOf("organizations.listAuditLog", "organizations.exportAuditLog"),
        query: [...names, "format"],
        streams: EXPORT_TYPES,
      },
      async (input) => {
        const call = signedInCall(input);
        const organizationId = param(input, "id");
        const format = formatOf(input);
        if (format === undefined)
          return jsonResponse(
            200,
            await auth.organizations.listAuditLog(call, { ...filtersOf(input, names), organizationId }),
          );
        const filters = filtersOf(input, FILTERS);
        return exported(
          await auth.organizations.exportAuditLog(call, { ...filters, organizationId, format }),
        );
      },
    ),
  ];
}

/**
 * The back office's audit log (`/admin/audit-log`, the whole deployment, `organizationId` to
 * narrow it) and its chain check (`/admin/audit-log/verify`). Mounted with the back office and
 * `stores.auditLog`.
 */
export function adminAuditLogRoutes(auth: Auth): Route[] {
  const filters = [...FILTERS, "organizationId"];
  const names = [...filters, "cursor", "limit"];
  return [
    route(
      {
        method: "GET",
        path: "/admin/audit-log",
        summary:
          "The deployment's audit log, newest first, a page at a time; format=ndjson or format=csv streams an export, oldest first",
        auth: "admin",
        errors: errorsOf("admin.listAuditLog", "admin.exportAuditLog"),
        query: [...names, "format"],
        streams: EXPORT_TYPES,
      },
      async (input) => {
        const format = formatOf(input);
        if (format === undefined)
          return jsonResponse(200, await auth.admin.listAuditLog(adminCall(input), filtersOf(input, names)));
        const result = await auth.admin.exportAuditLog(adminCall(input), {
          ...filtersOf(input, filters),
          format,
        });
        return exported(result);
      },
    ),
    json(
      {
        method: "GET",
        path: "/admin/audit-log/verify",
        summary:
          "Walk the deployment's chain (or organizationId's) and name the first broken entry: { ok, checked, broken? }",
        auth: "admin",
        errors: errorsOf("admin.verifyAuditLog"),
        query: ["organizationId"],
      },
      (input) => auth.admin.verifyAuditLog(adminCall(input), filtersOf(input, ["organizationId"])),
    ),
  ];
}
