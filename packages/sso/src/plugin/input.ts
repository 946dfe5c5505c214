import { X509Certificate } from "node:crypto";
import type { SamlConnectionSettings } from "@portcullis/core";
import { ValidationError } from "@portcullis/core";
import { IdpMetadataError, readIdpMetadata } from "../saml/idp-metadata.js";

/** `VALIDATION_FAILED` at `path` (rule `invalid`, or `required` for a missing field). */
export function invalid(
  path: string,
  message: string,
  rule: "invalid" | "required" = "invalid",
): ValidationError {
  return new ValidationError([{ path, message, rule }]);
}

/** The JSON body as an object; anything else is `VALIDATION_FAILED`. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw invalid("", "must be a JSON object");
  return body as Record<string, unknown>;
}

/** A string of 1 to `max` characters, without control characters, trimmed. */
export function text(body: Record<string, unknown>, field: string, max: number): string {
  const value = body[field];
  if (value === undefined || value === null || value === "") throw invalid(field, "is required", "required");
  if (typeof value !== "string" || value.length > max || /[\p{Cc}]/u.test(value))
    throw invalid(field, `must be text of at most ${max} characters`);
  return value.trim();
}

/** A boolean field, `fallback` when absent. */
export function flag(body: Record<string, unknown>, field: string, fallback: boolean): boolean {
  const value = body[field];
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw invalid(field, "must be true or false");
  return value;
}

/** Lowercase, no trailing dot, letters, digits and hyphens in 2 to 127 labels (no IP address, no wildcard). */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** A domain name as the stores keep it (lowercase, no trailing dot), or `VALIDATION_FAILED` at `path`. */
export function domainName(value: unknown, path: string): string {
  if (typeof value !== "string") throw invalid(path, "must be a domain name such as example.com");
  const domain = value.trim().toLowerCase().replace(/\.$/, "");
  if (!DOMAIN.test(domain)) throw invalid(path, "must be a domain name such as example.com");
  return domain;
}

/** At most this many domains per connection. */
const MAX_DOMAINS = 20;

/** The `domains` field: distinct domain names, at most 20; `[]` when absent. */
export function domainList(body: Record<string, unknown>): string[] {
  const value = body.domains;
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_DOMAINS)
    throw invalid("domains", `must be a list of at most ${MAX_DOMAINS} domain names`);
  return [...new Set(value.map((entry, index) => domainName(entry, `domains.${index}`)))];
}

/**
 * An identity provider's single sign-on URL: https, or http on a loopback host (a provider on the
 * same machine, as in development and tests).
 */
export function ssoUrl(value: string, path: string): string {
  const url = URL.canParse(value) ? new URL(value) : null;
  const loopback = url !== null && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  if (url === null || !(url.protocol === "https:" || (url.protocol === "http:" && loopback)))
    throw invalid(path, "must be an https URL");
  return url.href;
}

/** The signing certificates: `certificate` (one PEM) or `certificates` (1 to 3), each a parseable X.509 certificate. */
export function certificates(body: Record<string, unknown>): string[] {
  const given = body.certificates ?? (body.certificate === undefined ? undefined : [body.certificate]);
  if (given === undefined) throw invalid("certificate", "is required", "required");
  if (!Array.isArray(given) || given.length === 0 || given.length > 3)
    throw invalid("certificates", "must be 1 to 3 PEM certificates");
  return given.map((pem, index) => {
    const path = body.certificates === undefined ? "certificate" : `certificates.${index}`;
    if (typeof pem !== "string" || pem.length > 16_384) throw invalid(path, "must be a PEM certificate");
    try {
      return new X509Certificate(pem).toString().trim();
    } catch {
      throw invalid(path, "must be a PEM certificate");
    }
  });
}

/**
 * A SAML connection's identity-provider settings from a request body: its metadata document
 * (`metadataXml`, what Okta, Entra ID and Google Workspace offer to download), or `entityId`,
 * `ssoUrl` and `certificate` (or `certificates`) typed in.
 */
export function samlSettings(body: Record<string, unknown>): SamlConnectionSettings {
  if (body.metadataXml !== undefined) {
    if (typeof body.metadataXml !== "string")
      throw invalid("metadataXml", "must be the metadata document (XML)");
    let read: SamlConnectionSettings;
    try {
      read = readIdpMetadata(body.metadataXml);
    } catch (error) {
      throw invalid(
        "metadataXml",
        error instanceof IdpMetadataError ? error.message : "is not a metadata document",
      );
    }
    return { ...read, ssoUrl: ssoUrl(read.ssoUrl, "metadataXml") };
  }
  return {
    entityId: text(body, "entityId", 1024),
    ssoUrl: ssoUrl(text(body, "ssoUrl", 2048), "ssoUrl"),
    certificates: certificates(body),
  };
}
