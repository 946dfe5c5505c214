// Writes src/api-types.ts: the core's types that the client's routes use (inputs, answers, the
// user, the error codes), expanded into plain declarations, so the published client carries its
// own types and needs nothing of @portcullis/core (an optional peer a front-end does not install).
// `node packages/client/scripts/api-types.mjs` rewrites the file; src/api-types.test.ts fails when
// it differs from what this script makes of the core's current types.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The generated file. */
export const OUTPUT = join(PACKAGE, "src", "api-types.ts");
const PROBE = join(PACKAGE, "src", "__api-types-probe.ts");

/** Each named export of the file: the core's type it is. */
const NAMED = [
  "AccountExport",
  "Activation",
  "ActivityPage",
  "AdminUser",
  "AdminUserDetail",
  "ChangePasswordInput",
  "CodeInput",
  "ConfirmTotpInput",
  "CreateApiKeyInput",
  "CreateWebhookInput",
  "EmailChangeInput",
  "EmailInput",
  "EmailSignInInput",
  "ErrorCode",
  "LoginInput",
  "PreferredMethodInput",
  "RefreshInput",
  "RegisterInput",
  "RequiredPasswordChangeInput",
  "ResetPasswordInput",
  "StepUpInput",
  "TotpSetup",
  "TwoFactorChallenge",
  "TwoFactorMethod",
  "UpdateWebhookInput",
  "User",
];

/** `AuthAnswers`: the resolved result of each `Auth` method a route answers with, by its path. */
const ANSWERS = [
  "logout",
  "getCurrentUser",
  "sessions.list",
  "sessions.revoke",
  "sessions.revokeAll",
  "sessions.listTrustedBrowsers",
  "sessions.forgetTrustedBrowsers",
  "confirmTotpSetup",
  "disableTwoFactorMethod",
  "sendTwoFactorEmailCode",
  "getTwoFactorEmailCooldown",
  "enableEmailTwoFactor",
  "setPreferredTwoFactorMethod",
  "requestPasswordReset",
  "getPasswordResetCooldown",
  "resetPassword",
  "resendVerification",
  "getVerificationCooldown",
  "verifyEmail",
  "requestEmailSignIn",
  "identityProviders.list",
  "identityProviders.unlink",
  "account.changePassword",
  "account.requestEmailChange",
  "account.confirmEmailChange",
  "account.delete",
  "passkeys.registrationOptions",
  "passkeys.register",
  "passkeys.stepUpOptions",
  "passkeys.list",
  "passkeys.rename",
  "passkeys.delete",
  "admin.listUsers",
  "admin.revokeSessions",
  "admin.listOrganizations",
  "admin.listAuditLog",
  "admin.verifyAuditLog",
  "organizations.create",
  "organizations.list",
  "organizations.get",
  "organizations.update",
  "organizations.delete",
  "organizations.listMembers",
  "organizations.changeMemberRole",
  "organizations.removeMember",
  "organizations.invite",
  "organizations.listInvitations",
  "organizations.revokeInvitation",
  "organizations.receivedInvitations",
  "organizations.acceptInvitation",
  "organizations.declineInvitation",
  "organizations.listRoles",
  "organizations.createRole",
  "organizations.updateRole",
  "organizations.deleteRole",
  "organizations.listAuditLog",
  "apiKeys.create",
  "apiKeys.list",
  "apiKeys.delete",
  "webhooks.create",
  "webhooks.list",
  "webhooks.update",
  "webhooks.delete",
  "webhooks.rotateSecret",
  "webhooks.listDeliveries",
  "webhooks.redeliver",
];

const probeSource = () => {
  const access = (path) =>
    `core.Auth${path
      .split(".")
      .map((part) => `["${part}"]`)
      .join("")}`;
  return [
    `import type * as core from "@portcullis/core";`,
    "type A<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;",
    `export interface Named { ${NAMED.map((name) => `${name}: core.${name};`).join(" ")} }`,
    `export interface AuthAnswers { ${ANSWERS.map((path) => `"${path}": A<${access(path)}>;`).join(" ")} }`,
  ].join("\n");
};

function program() {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(PACKAGE, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  const source = probeSource();
  host.readFile = (file) => (file === PROBE ? source : readFile(file));
  host.fileExists = (file) => file === PROBE || ts.sys.fileExists(file);
  host.getSourceFile = (file, version, ...rest) =>
    file === PROBE ? ts.createSourceFile(file, source, version, true) : getSourceFile(file, version, ...rest);
  return ts.createProgram([PROBE], config.options, host);
}

const isCore = (declaration) =>
  declaration.getSourceFile().fileName.replace(/\\/g, "/").includes("/packages/core/src/");
const quoteIfNeeded = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
const docOf = (checker, symbol, indent) => {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  if (!text) return "";
  const lines = text.split("\n");
  if (lines.length === 1) return `${indent}/** ${text} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join("\n")}\n${indent} */\n`;
};

/** Prints types as plain TypeScript: the core's interfaces by name (written out once each), the rest expanded. */
function createPrinter(checker) {
  const interfaces = new Map();
  const named = (type) => {
    const symbol = type.getSymbol();
    if (!symbol || !(symbol.flags & ts.SymbolFlags.Interface)) return undefined;
    if (!symbol.declarations?.some(isCore)) return undefined;
    if (type.aliasTypeArguments?.length || checker.getTypeArguments?.(type)?.length) return undefined;
    if (!interfaces.has(symbol.name)) interfaces.set(symbol.name, { symbol, type, text: undefined });
    return symbol.name;
  };
  const wrap = (text) => (/[|&]/.test(text) && !/^[[{(]/.test(text) ? `(${text})` : text);

  /** The type's members, but those it has from `bases` (which the declaration `extends`). */
  function members(type, indent, bases = []) {
    const lines = [];
    for (const info of checker.getIndexInfosOfType(type))
      lines.push(
        `${indent}${info.isReadonly ? "readonly " : ""}[key: ${checker.typeToString(info.keyType)}]: ${print(info.type, indent)};`,
      );
    for (const property of checker.getPropertiesOfType(type)) {
      if (bases.some((base) => checker.getPropertyOfType(base, property.name) === property)) continue;
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      const readonly = declaration && ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly;
      const optional = property.flags & ts.SymbolFlags.Optional;
      // An optional property's type holds `undefined`: `?` says it.
      const text = print(checker.getTypeOfSymbol(property), indent, Boolean(optional));
      lines.push(
        `${docOf(checker, property, indent)}${indent}${readonly ? "readonly " : ""}${quoteIfNeeded(property.name)}${optional ? "?" : ""}: ${text};`,
      );
    }
    return lines;
  }

  function print(type, indent = "", dropUndefined = false, expand = false) {
    const alias = type.aliasSymbol;
    if (!expand && alias && !type.aliasTypeArguments?.length && alias.declarations?.some(isCore)) {
      if (!interfaces.has(alias.name)) interfaces.set(alias.name, { symbol: alias, type, alias: true });
      return alias.name;
    }
    // An unresolved type (the core does not compile) must not become the client's `any`.
    if (type.flags & ts.TypeFlags.Any) throw new Error("a type of the core resolves to any");
    if (type.flags & ts.TypeFlags.Boolean) return "boolean";
    if (type.isUnion()) {
      const parts = [];
      const types = type.types.filter((t) => !(dropUndefined && t.flags & ts.TypeFlags.Undefined));
      const hasTrue = types.some(
        (t) => t.flags & ts.TypeFlags.BooleanLiteral && checker.typeToString(t) === "true",
      );
      const hasFalse = types.some(
        (t) => t.flags & ts.TypeFlags.BooleanLiteral && checker.typeToString(t) === "false",
      );
      for (const member of types) {
        if (hasTrue && hasFalse && member.flags & ts.TypeFlags.BooleanLiteral) {
          if (!parts.includes("boolean")) parts.push("boolean");
        } else parts.push(wrap(print(member, indent)));
      }
      return parts.join(" | ");
    }
    if (type.isIntersection()) return type.types.map((member) => wrap(print(member, indent))).join(" & ");
    if (!(type.flags & ts.TypeFlags.Object)) return checker.typeToString(type);
    if (checker.isTupleType(type))
      return `[${checker
        .getTypeArguments(type)
        .map((member) => print(member, indent))
        .join(", ")}]`;
    if (checker.isArrayType(type)) {
      const element = wrap(print(checker.getTypeArguments(type)[0], indent));
      return `${type.getSymbol()?.name === "ReadonlyArray" ? "readonly " : ""}${element}[]`;
    }
    const name = named(type);
    if (name) return name;
    const symbol = type.getSymbol();
    if (
      symbol?.declarations?.some((d) => d.getSourceFile().isDeclarationFile && !isCore(d)) &&
      !(symbol.flags & ts.SymbolFlags.TypeLiteral)
    )
      return checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation);
    if (checker.getSignaturesOfType(type, ts.SignatureKind.Call).length > 0)
      return checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation);
    const lines = members(type, `${indent}  `);
    return lines.length === 0 ? "{}" : `{\n${lines.join("\n")}\n${indent}}`;
  }

  /** The core's interfaces `type` extends, by name, when it extends only such (else none). */
  function heritage(type) {
    const bases = checker.getBaseTypes(type);
    const names = bases.map(named);
    return names.every(Boolean) ? { bases, names } : { bases: [], names: [] };
  }

  return { print, members, heritage, interfaces };
}

/** The text of src/api-types.ts for the core's current types, formatted as Biome formats it. */
export function generateApiTypes() {
  const biome = join(PACKAGE, "..", "..", "node_modules", ".bin", "biome");
  return execFileSync(biome, ["format", `--stdin-file-path=${OUTPUT}`], {
    input: unformatted(),
    encoding: "utf8",
  });
}

function unformatted() {
  const built = program();
  const checker = built.getTypeChecker();
  const probe = built.getSourceFile(PROBE);
  const errors = ts.getPreEmitDiagnostics(built, probe);
  if (errors.length > 0)
    throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, "\n")).join("\n"));
  const exported = (name) => {
    const symbol = checker
      .getExportsOfModule(checker.getSymbolAtLocation(probe))
      .find((s) => s.name === name);
    return checker.getDeclaredTypeOfSymbol(symbol);
  };
  const printer = createPrinter(checker);
  const blocks = [];
  for (const property of checker.getPropertiesOfType(exported("Named"))) {
    const type = checker.getTypeOfSymbol(property);
    const text = printer.print(type);
    if (text !== property.name)
      blocks.push({ name: property.name, text: `export type ${property.name} = ${text};` });
  }
  blocks.push({
    name: "AuthAnswers",
    text: `/** What each \`Auth\` method a route answers with resolves to, by its path in \`Auth\`. */\nexport interface AuthAnswers {\n${printer.members(exported("AuthAnswers"), "  ").join("\n")}\n}`,
  });
  // The core's interfaces, each once; writing one out may name more.
  for (let written = 0; written < printer.interfaces.size; ) {
    const entries = [...printer.interfaces.values()];
    written = entries.length;
    for (const entry of entries) {
      if (entry.text !== undefined) continue;
      const doc = docOf(checker, entry.symbol, "");
      if (entry.alias) {
        entry.text = `${doc}export type ${entry.symbol.name} = ${printer.print(entry.type, "", false, true)};`;
        continue;
      }
      const { bases, names } = printer.heritage(entry.type);
      const body = printer.members(entry.type, "  ", bases);
      const extending = names.length > 0 ? ` extends ${names.join(", ")}` : "";
      entry.text = `${doc}export interface ${entry.symbol.name}${extending} {\n${body.join("\n")}\n}`;
    }
    if (printer.interfaces.size === written) break;
  }
  for (const entry of printer.interfaces.values()) blocks.push({ name: entry.symbol.name, text: entry.text });
  blocks.sort((a, b) => a.name.localeCompare(b.name));
  return [
    "// Generated by scripts/api-types.mjs from @portcullis/core's types: do not edit (run",
    "// `node packages/client/scripts/api-types.mjs`; src/api-types.test.ts fails when it drifts).",
    "",
    blocks.map((block) => block.text).join("\n\n"),
    "",
  ].join("\n");
}

// `--print` writes the text to stdout (the drift test compares it with the file) instead.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = generateApiTypes();
  if (process.argv.includes("--print")) process.stdout.write(text);
  else {
    writeFileSync(OUTPUT, text);
    console.log(`wrote ${OUTPUT}`);
  }
}
