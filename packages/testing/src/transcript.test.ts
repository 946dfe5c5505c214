import { describe, expect, it } from "vitest";
import { normalizeTranscript } from "./transcript.js";

describe("normalizeTranscript", () => {
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmU";
  const device = (id: string) => `d1.${id}.1700000000.${"s".repeat(43)}`;

  it("a device token whose random part holds 'eyJ' is a device token, not a JWT inside one", () => {
    const id = "pReyJabcdefghijklmnop_"; // 22 characters, with a JWT's first three in it
    expect(id).toHaveLength(22);
    expect(normalizeTranscript(`set-cookie: device_token=${device(id)}; Path=/`)).toBe(
      "set-cookie: device_token=<device>; Path=/",
    );
    expect(normalizeTranscript(`{"deviceToken":"${device(id)}"}`)).toBe('{"deviceToken":"<device>"}');
  });

  it("JWTs, device tokens and refresh tokens side by side each keep their own placeholder", () => {
    const refresh = `${"r".repeat(22)}.${"t".repeat(43)}`;
    expect(
      normalizeTranscript(
        `access_token=${jwt}; device_token=${device("a".repeat(22))}; refresh_token=${refresh}`,
      ),
    ).toBe("access_token=<jwt>; device_token=<device>; refresh_token=<refresh>");
    expect(normalizeTranscript(`authorization: Bearer ${jwt}`)).toBe("authorization: Bearer <jwt>");
  });
});
