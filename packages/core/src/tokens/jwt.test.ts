import { jwtVerify, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { JWT_ALGORITHM, signSessionJwt } from "./jwt.js";
import { createSigningKeys } from "./keys.js";

const secrets = ["a secret of forty characters, at least!", "the previous secret, still verifying"];
const keys = createSigningKeys(secrets, "ACCESS_TOKEN_INVALID");
const base = {
  typ: "at+jwt",
  userId: "user-1",
  sessionId: "session-1",
  issuer: "https://auth.example.com",
  audience: "https://app.example.com",
  issuedAtSeconds: 1_767_225_600,
  ttlSeconds: 900,
};

/** What jose's `SignJWT` makes for the same claims, as jwt.ts signed before it used node:crypto. */
function joseToken(claims: typeof base & { jti?: string; actor?: string; organizationId?: string }) {
  const payload: Record<string, unknown> = { sid: claims.sessionId };
  if (claims.actor !== undefined) payload.act = { sub: claims.actor };
  if (claims.organizationId !== undefined) payload.org = claims.organizationId;
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: JWT_ALGORITHM, typ: claims.typ, kid: keys.currentKid })
    .setSubject(claims.userId)
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setIssuedAt(claims.issuedAtSeconds)
    .setExpirationTime(claims.issuedAtSeconds + claims.ttlSeconds);
  if (claims.jti !== undefined) jwt.setJti(claims.jti);
  return jwt.sign(new TextEncoder().encode(secrets[0]));
}

describe("signSessionJwt", () => {
  const cases = {
    "an access token": { ...base, jti: "jti-1" },
    "an impersonation's, with act": { ...base, jti: "jti-2", actor: "admin-1" },
    "with an active organization": { ...base, jti: "jti-3", organizationId: "org-1" },
    "both, and characters JSON escapes": {
      ...base,
      userId: 'ü "quoted" \\ \u2028 😀',
      jti: "jti-4",
      actor: "admin</script>",
      organizationId: "org-ä",
    },
    "a step-up token: no jti": { ...base, typ: "step-up+jwt" },
  };

  for (const [name, claims] of Object.entries(cases)) {
    it(`${name} - the same bytes as jose's SignJWT, verified by jose`, async () => {
      const token = signSessionJwt(keys, claims);
      expect(token).toBe(await joseToken(claims));
      const { payload, protectedHeader } = await jwtVerify(token, keys.resolve, {
        algorithms: [JWT_ALGORITHM],
        typ: claims.typ,
        issuer: base.issuer,
        audience: base.audience,
        currentDate: new Date((base.issuedAtSeconds + 1) * 1000),
      });
      expect(protectedHeader).toEqual({ alg: "HS256", typ: claims.typ, kid: keys.currentKid });
      expect(payload).toMatchObject({
        sub: claims.userId,
        sid: claims.sessionId,
        exp: base.issuedAtSeconds + 900,
      });
    });
  }

  it("a token signed under one secret does not verify under another", async () => {
    const other = createSigningKeys(["a different secret of forty characters!!"], "ACCESS_TOKEN_INVALID");
    const token = signSessionJwt(other, { ...base, jti: "x" });
    await expect(jwtVerify(token, () => keys.resolve({}), { algorithms: [JWT_ALGORITHM] })).rejects.toThrow(
      /signature/,
    );
  });

  it("each set of keys names its own kid in the header, and each kind its typ", () => {
    const other = createSigningKeys([secrets[1] as string, secrets[0] as string], "ACCESS_TOKEN_INVALID");
    const header = (token: string) =>
      JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString());
    expect(header(signSessionJwt(keys, base)).kid).toBe(keys.currentKid);
    expect(header(signSessionJwt(other, base)).kid).toBe(other.currentKid);
    expect(other.currentKid).not.toBe(keys.currentKid);
    expect(header(signSessionJwt(keys, { ...base, typ: "step-up+jwt" })).typ).toBe("step-up+jwt");
  });
});
