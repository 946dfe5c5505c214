import type { AuthContext } from "../context.js";
import { ValidationError } from "../errors.js";
import { passwordHashProblem } from "../hashing/imported-hashes.js";
import { toUser, type User } from "../model.js";
import { checkPasswordPolicy } from "../passwords/password-policy.js";
import type { Acting } from "../sessions/admin-actor.js";
import { createUserRecord } from "../sessions/new-user.js";
import { createUserInput, fieldIssue, parseInput } from "../validation.js";

/**
 * Creates a user from a script or back office: verified or not, with a password (policy
 * checked), with a `passwordHash` imported from another system (one the default hasher verifies,
 * within its bounds: docs/importing-users.md) or without either (an identity-provider account). Sends no email. A taken address is
 * `VALIDATION_FAILED` on `email` (this is not an anonymous route, so it may say so).
 */
export async function createUser(ctx: AuthContext, _acting: Acting, input: unknown): Promise<User> {
  const {
    email,
    password,
    passwordHash: imported,
    name,
    emailVerified,
    identityProviders,
  } = parseInput(createUserInput, input);
  if (password !== undefined && imported !== undefined) {
    throw new ValidationError([
      fieldIssue("passwordHash", "not_allowed", { options: "password or passwordHash" }),
    ]);
  }
  // An imported hash is stored as given, once it is one the default hasher verifies within its
  // bounds: a record whose parameters would make each login hash for minutes is refused here.
  if (imported !== undefined && passwordHashProblem(imported) !== null) {
    throw new ValidationError([fieldIssue("passwordHash", "invalid_format")]);
  }
  const passwordHash =
    imported ??
    (password === undefined
      ? null
      : await ctx.hasher.hash(checkPasswordPolicy(password, ctx.options.password)));
  const created = await createUserRecord(ctx, {
    email,
    emailVerified: emailVerified ?? false,
    name: name ?? null,
    passwordHash,
    identityProviders,
  });
  if (!created) throw new ValidationError([fieldIssue("email", "email_taken")]);
  ctx.events.emit("user.created", { userId: created.id, reason: "admin" });
  return toUser(created);
}
