import { hostileReturnTos, RETURN_TOS_TO_ANOTHER_ORIGIN } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { parseReturnTo } from "../identity/flow.js";
import { appUrlFor } from "./app-url.js";

const APP = "https://app.example.test";
const ORIGIN = new URL(APP).origin;

describe("returnTo", () => {
  it.each([...RETURN_TOS_TO_ANOTHER_ORIGIN.map((value) => [value]), ["/./\\evil.test"], ["/..//evil.test"]])(
    "parseReturnTo - refuses a path that normalizes to another origin (%s)",
    (value) => {
      expect(() => parseReturnTo(APP, value)).toThrow(expect.objectContaining({ code: "VALIDATION_FAILED" }));
    },
  );

  it("parseReturnTo - keeps a plain path as given, and normalizes dot segments it can keep", () => {
    expect(parseReturnTo(APP, "/settings?tab=security#x")).toBe("/settings?tab=security#x");
    expect(parseReturnTo(APP, "/a/../b/./c")).toBe("/b/c");
    expect(parseReturnTo(APP, "/%2e%2e/x")).toBe("/x");
  });

  it("parseReturnTo - property: 20,000 generated values are refused or give a path that redirects on appOrigin", () => {
    let accepted = 0;
    for (const value of hostileReturnTos(20_240_611, 20_000)) {
      let path: string;
      try {
        path = parseReturnTo(APP, value);
      } catch (error) {
        expect((error as { code?: string }).code, value).toBe("VALIDATION_FAILED");
        continue;
      }
      accepted++;
      // The value used is the value checked: normalizing it again changes nothing.
      expect(parseReturnTo(APP, path), value).toBe(path);
      expect(path.startsWith("/") && !path.startsWith("//"), value).toBe(true);
      for (const extra of [{}, { stepUp: "1" }, { linked: "github" }] as Record<string, string>[])
        expect(new URL(appUrlFor(APP, path, extra)).origin, value).toBe(ORIGIN);
      // A browser resolves the Location header the same way.
      expect(new URL(appUrlFor(APP, path), "https://other.test").origin, value).toBe(ORIGIN);
    }
    // The generator is not so hostile that nothing gets through.
    expect(accepted).toBeGreaterThan(1_000);
  });

  it("appUrlFor - a path that resolves elsewhere falls back to appOrigin itself", () => {
    expect(appUrlFor(APP, "//evil.test/x", { error: "X" })).toBe(`${APP}/?error=X`);
    expect(appUrlFor(APP, "https://evil.test/")).toBe(`${APP}/`);
    expect(appUrlFor(`${APP}/app`, "", { error: "X" })).toBe(`${APP}/app?error=X`);
    expect(appUrlFor(APP, "/settings?tab=1", { linked: "github" })).toBe(
      `${APP}/settings?tab=1&linked=github`,
    );
  });
});
