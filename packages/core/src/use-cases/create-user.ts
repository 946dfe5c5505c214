import type { AuthContext } from "../context.js";
import { guardPort, ValidationError } from "../errors.js";
import { toUser, type User } from "../model.js";
import { checkPasswordPolicy } from "../password-policy.js";
import { NO_TWO_FACTOR } from "../ports/user-store.js";
import { createUserInput, fieldIssue, parseInput } from "../validation.js";

/**
 * Creates a user from a script or back office: verified or not, with a password (policy
 * checked) or without one (an identity-provider account). Sends no email. A taken address is
 * `VALIDATION_FAILED` on `email` (this is not an anonymous route, so it may say so).
 */
export async function createUser(ctx: AuthContext, input: unknown): Promise<User> {
  const { email, password, name, emailVerified, identityProviders } = parseInput(createUserInput, input);
  const passwordHash =
    password === undefined
      ? null
      : await ctx.hasher.hash(checkPasswordPolicy(password, ctx.options.password));
  const created = await guardPort("DATABASE_FAILURE", () =>
    ctx.users.create({
      id: ctx.generateId(),
      email,
      emailVerified: emailVerified ?? false,
      name: name ?? null,
      passwordHash,
      identityProviders: identityProviders ?? [],
      twoFactor: { ...NO_TWO_FACTOR, methods: [], recoveryCodeHashes: [] },
      createdAt: ctx.clock.now(),
    }),
  );
  if (!created) throw new ValidationError([fieldIssue("email", "email_taken")]);
  ctx.events.emit("user.created", { userId: created.id, reason: "admin" });
  return toUser(created);
}
