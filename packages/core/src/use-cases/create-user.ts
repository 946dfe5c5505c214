import type { AuthContext } from "../context.js";
import { ValidationError } from "../errors.js";
import { type Call, toUser, type User } from "../model.js";
import { checkPasswordPolicy } from "../password-policy.js";
import { createUserRecord } from "../sessions/new-user.js";
import { createUserInput, fieldIssue, parseInput } from "../validation.js";

/**
 * Creates a user from a script or back office: verified or not, with a password (policy
 * checked) or without one (an identity-provider account). Sends no email. A taken address is
 * `VALIDATION_FAILED` on `email` (this is not an anonymous route, so it may say so).
 */
export async function createUser(ctx: AuthContext, _call: Call, input: unknown): Promise<User> {
  const { email, password, name, emailVerified, identityProviders } = parseInput(createUserInput, input);
  const passwordHash =
    password === undefined
      ? null
      : await ctx.hasher.hash(checkPasswordPolicy(password, ctx.options.password));
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
