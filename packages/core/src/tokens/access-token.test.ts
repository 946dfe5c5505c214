import { generateKeyPairSync } from "node:crypto";
import { createFakeClock } from "@portcullis/testing";
import { SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createAccessTokenCodec } from "./access-token.js";
import { createSigningKeys } from "./keys.js";

const secret = "s".repeat(40);
const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
const keys = (...secrets: string[]) => createSigningKeys(secrets, "ACCESS_TOKEN_INVALID");
const codec = createAccessTokenCodec({
  keys: keys(secret),
  issuer: "iss",
  audience: "aud",
  ttlSeconds: 900,
  clock,
});
const claims = { userId: "user-1", sessionId: "session-1", jti: "jti-1" };
const key = new TextEncoder().encode(secret);

const forge = (mutate: (jwt: SignJWT) => SignJWT, header: Record<string, unknown> = {}) =>
  mutate(
    new SignJWT({ sid: "session-1" })
      .setProtectedHeader({ alg: "HS256", typ: "at+jwt", ...header })
      .setSubject("user-1")
      .setJti("jti-1")
      .setIssuer("iss")
      .setAudience("aud")
      .setIssuedAt(Math.floor(clock.now() / 1000))
      .setExpirationTime(Math.floor(clock.now() / 1000) + 60),
  ).sign(key);

const code = async (token: string) =>
  codec.verify(token).then(
    () => "OK",
    (error) => error.code,
  );

describe("access tokens", () => {
  it("verify - accepts what sign made and returns its claims", async () => {
    expect(await codec.verify(await codec.sign(claims))).toEqual(claims);
  });

  it("verify - expired after the TTL (plus the small leeway), not before", async () => {
    const token = await codec.sign(claims);
    clock.advance(899_000);
    expect(await code(token)).toBe("OK");
    clock.advance(10_000);
    expect(await code(token)).toBe("ACCESS_TOKEN_EXPIRED");
  });

  it("verify - refuses alg none, other algorithms, typ/iss/aud mismatches and tampering", async () => {
    const unsecured = new UnsecuredJWT({ sid: "session-1" })
      .setSubject("user-1")
      .setJti("j")
      .setIssuer("iss")
      .setAudience("aud")
      .setExpirationTime("1h")
      .encode();
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const rs256 = await new SignJWT({ sid: "s" })
      .setProtectedHeader({ alg: "RS256", typ: "at+jwt" })
      .setSubject("u")
      .setJti("j")
      .setIssuer("iss")
      .setAudience("aud")
      .setExpirationTime("1h")
      .sign(privateKey);
    const valid = await codec.sign(claims);
    const [h, p, s] = valid.split(".");
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p ?? "", "base64url").toString()), sub: "admin" })).toString("base64url")}.${s}`;
    const cases = [
      unsecured,
      rs256,
      tampered,
      await forge((jwt) => jwt, { typ: "JWT" }),
      await forge((jwt) => jwt.setIssuer("other")),
      await forge((jwt) => jwt.setAudience("other")),
      await forge((jwt) => jwt, { jku: "https://evil.test/keys", kid: "evil" }).then((t) =>
        t.replace(/.$/, "A"),
      ),
      "not-a-jwt",
      "a.b.c",
      "",
      "x".repeat(5000),
    ];
    for (const token of cases) expect(await code(token), token.slice(0, 40)).toBe("ACCESS_TOKEN_INVALID");
  });

  it("verify - a token signed with another secret is invalid", async () => {
    const other = createAccessTokenCodec({
      keys: keys("o".repeat(40)),
      issuer: "iss",
      audience: "aud",
      ttlSeconds: 900,
      clock,
    });
    expect(await code(await other.sign(claims))).toBe("ACCESS_TOKEN_INVALID");
  });

  it("verify - key rotation: the first secret signs with its kid, every listed secret verifies, an unknown kid is refused", async () => {
    const old = createAccessTokenCodec({
      keys: keys(secret),
      issuer: "iss",
      audience: "aud",
      ttlSeconds: 900,
      clock,
    });
    const next = "next-secret-9876543210-zyxwvutsrqponmlkj";
    const rotated = createAccessTokenCodec({
      keys: keys(next, secret),
      issuer: "iss",
      audience: "aud",
      ttlSeconds: 900,
      clock,
    });
    const before = await old.sign(claims);
    expect(await rotated.verify(before)).toEqual(claims);
    const after = await rotated.sign(claims);
    const header = JSON.parse(Buffer.from(after.split(".")[0] ?? "", "base64url").toString());
    expect(header).toMatchObject({ alg: "HS256", typ: "at+jwt", kid: expect.any(String) });
    expect(header.kid).toBe(keys(next).currentKid);
    expect(
      await code(
        after.replace(
          /^[^.]+/,
          Buffer.from(JSON.stringify({ ...header, kid: "unknown" })).toString("base64url"),
        ),
      ),
    ).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(after)).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(await forge((jwt) => jwt, { kid: "nope" }))).toBe("ACCESS_TOKEN_INVALID");
  });
});

describe("access tokens - verified-token cache", () => {
  /** Keys whose resolver counts calls: jose asks for the key once per full verify, never on a cache hit. */
  const countingKeys = (...secrets: string[]) => {
    const inner = keys(...secrets);
    const counter = { full: 0 };
    const counted: typeof inner = {
      currentKid: inner.currentKid,
      currentSecret: inner.currentSecret,
      resolve: (header) => {
        counter.full += 1;
        return inner.resolve(header);
      },
    };
    return { keys: counted, counter };
  };
  const makeCodec = (cacheMaxEntries?: number, secrets: string[] = [secret]) => {
    const { keys: counted, counter } = countingKeys(...secrets);
    const made = createAccessTokenCodec({
      keys: counted,
      issuer: "iss",
      audience: "aud",
      ttlSeconds: 900,
      clock,
      ...(cacheMaxEntries === undefined ? {} : { cacheMaxEntries }),
    });
    return { codec: made, counter };
  };

  it("verify - a verified token is answered from the cache, with the same claims", async () => {
    const { codec: cached, counter } = makeCodec();
    const token = await cached.sign(claims);
    expect(await cached.verify(token)).toEqual(claims);
    expect(await cached.verify(token)).toEqual(claims);
    expect(await cached.verify(token)).toEqual(claims);
    expect(counter.full).toBe(1);
    expect(cached.cachedCount()).toBe(1);
  });

  it("verify - the cache is bounded: more tokens than its maximum keep it at the maximum", async () => {
    const { codec: cached, counter } = makeCodec(50);
    const tokens: string[] = [];
    for (let i = 0; i < 120; i++) tokens.push(await cached.sign({ ...claims, jti: `jti-${i}` }));
    for (const token of tokens) await cached.verify(token);
    expect(cached.cachedCount()).toBe(50);
    counter.full = 0;
    await cached.verify(tokens[119] ?? "");
    expect(counter.full).toBe(0);
    await cached.verify(tokens[0] ?? ""); // evicted long ago: checked in full again
    expect(counter.full).toBe(1);
    expect(cached.cachedCount()).toBe(50);
  });

  it("verify - a cached token past its exp (plus the leeway) is ACCESS_TOKEN_EXPIRED and leaves the cache", async () => {
    const { codec: cached } = makeCodec();
    const token = await cached.sign(claims);
    expect(await cached.verify(token)).toEqual(claims);
    clock.advance(900_000 + 4_000);
    expect(await cached.verify(token)).toEqual(claims);
    clock.advance(2_000);
    await expect(cached.verify(token)).rejects.toMatchObject({ code: "ACCESS_TOKEN_EXPIRED" });
    expect(cached.cachedCount()).toBe(0);
  });

  it("verify - a token signed with another key, or changed in one byte, never hits the cache", async () => {
    const { codec: cached, counter } = makeCodec();
    const { codec: foreign } = makeCodec(undefined, ["o".repeat(40)]);
    const token = await cached.sign(claims);
    await cached.verify(token);
    const forged = await foreign.sign(claims); // same claims and iat, another key
    expect(forged.split(".")[1]).toBe(token.split(".")[1]);
    counter.full = 0;
    await expect(cached.verify(forged)).rejects.toMatchObject({ code: "ACCESS_TOKEN_INVALID" });
    const at = token.length - 10;
    const flipped = `${token.slice(0, at)}${token[at] === "A" ? "B" : "A"}${token.slice(at + 1)}`;
    await expect(cached.verify(flipped)).rejects.toMatchObject({ code: "ACCESS_TOKEN_INVALID" });
    expect(counter.full).toBe(2);
    expect(cached.cachedCount()).toBe(1);
  });

  it("verify - after key rotation drops a secret, its tokens are refused even when cached elsewhere", async () => {
    const { codec: before } = makeCodec(undefined, [secret]);
    const token = await before.sign(claims);
    await before.verify(token);
    const { codec: after } = makeCodec(undefined, ["n".repeat(40)]);
    await expect(after.verify(token)).rejects.toMatchObject({ code: "ACCESS_TOKEN_INVALID" });
  });

  it("verify - cacheMaxEntries 0 turns the cache off", async () => {
    const { codec: uncached, counter } = makeCodec(0);
    const token = await uncached.sign(claims);
    await uncached.verify(token);
    await uncached.verify(token);
    expect(counter.full).toBe(2);
    expect(uncached.cachedCount()).toBe(0);
  });
});
