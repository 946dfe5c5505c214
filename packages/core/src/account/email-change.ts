import { AuthError } from "../errors.js";
import type { Logger } from "../ports/logger.js";
import type { UserStore } from "../ports/user-store.js";

/**
 * The store's `changeEmail`, or `INTERNAL_ERROR` (logged as `users.change_email_unsupported`) for a
 * store written before it: an address cannot change without its atomic uniqueness.
 */
export function changeEmailOf(ctx: {
  users: UserStore;
  logger: Logger;
}): NonNullable<UserStore["changeEmail"]> {
  const store = ctx.users;
  if (store.changeEmail) return store.changeEmail.bind(store);
  ctx.logger.error(
    { event: "users.change_email_unsupported" },
    "the UserStore has no changeEmail(id, from, to): addresses cannot be changed (see UserStore.changeEmail)",
  );
  throw new AuthError("INTERNAL_ERROR");
}
