import { changeEmailOf } from "../account/email-change.js";
import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { type Call, toUser, type User } from "../model.js";
import { useLinkToken } from "../tokens/link-token.js";
import { EMAIL_CHANGE_PURPOSE } from "../tokens/purposes.js";

/**
 * Confirms an address change with the emailed link's token (docs/concepts.md, "Account self-service"): the account moves to
 * the new address, verified, in one atomic store step (`UserStore.changeEmail`); from then on the
 * old address signs in to nothing. The link works once and only while the account still has the
 * address it was requested from. Another account that took the new address meanwhile (also at
 * the same moment) wins: 409 `EMAIL_ADDRESS_TAKEN`, this account keeps its address and the link is
 * spent. An unknown, used or expired link is `EMAIL_CHANGE_TOKEN_INVALID` (counted per IP). The
 * old address gets a notice naming the new one.
 */
export async function confirmEmailChange(ctx: AuthContext, { token, request = {} }: Call): Promise<User> {
  const changeEmail = changeEmailOf(ctx);
  return useLinkToken(ctx, {
    purpose: EMAIL_CHANGE_PURPOSE,
    token,
    request,
    invalid: "EMAIL_CHANGE_TOKEN_INVALID",
    expired: "EMAIL_CHANGE_TOKEN_INVALID",
    async use(user, record, consume) {
      const newEmail = record.data?.newEmail;
      if (typeof newEmail !== "string") throw new AuthError("EMAIL_CHANGE_TOKEN_INVALID");
      const result = await guardPort("DATABASE_FAILURE", () => changeEmail(user.id, user.email, newEmail));
      if (result.status === "taken") throw new AuthError("EMAIL_ADDRESS_TAKEN");
      if (result.status === "stale") throw new AuthError("EMAIL_CHANGE_TOKEN_INVALID");
      // Every open address-change link of the user, this one among them.
      await consume(() => ctx.singleUseTokens.deleteUserTokens(user.id, EMAIL_CHANGE_PURPOSE));
      ctx.events.emit("email.changed", { ...request, userId: user.id });
      ctx.emails.sendInBackground(
        "email-changed",
        user.email,
        request.locale ?? ctx.translator.defaultLocale,
        {
          name: user.name,
          newEmail,
        },
      );
      return toUser(result.user);
    },
  });
}
