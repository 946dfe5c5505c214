import { expect } from "vitest";
import type { AppTests } from "./fixture.js";

/** The cookies' attributes under the default and the prefixed options. */
export const cookiesTests: AppTests = {
  "cookies - HttpOnly, SameSite=Strict, Path and Max-Age as the contract says": async (boot) => {
    const app = await boot();
    const { cookies } = await app.signUp("cookies@example.test");
    const access = cookies.find((c) => c.startsWith("access_token="));
    const refresh = cookies.find((c) => c.startsWith("refresh_token="));
    expect(access?.replace(/^access_token=[^;]+/, "")).toBe(
      "; Max-Age=900; Path=/; HttpOnly; SameSite=Strict",
    );
    expect(refresh?.replace(/^refresh_token=[^;]+/, "")).toBe(
      "; Max-Age=2592000; Path=/api/auth; HttpOnly; SameSite=Strict",
    );
  },

  "cookies.hostPrefix - __Host- on Path=/ cookies, __Secure- on the refresh cookie, Secure on both": async (
    boot,
  ) => {
    const app = await boot({ cookies: { secure: true, hostPrefix: true }, email: { enabled: false } });
    const { cookies } = await app.signUp("prefix@example.test");
    expect(cookies.find((c) => c.startsWith("__Host-access_token="))).toMatch(
      /; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    expect(cookies.find((c) => c.startsWith("__Secure-refresh_token="))).toMatch(
      /; Path=\/api\/auth; HttpOnly; Secure; SameSite=Strict$/,
    );
  },
};
