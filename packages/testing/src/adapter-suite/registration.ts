import { expect } from "vitest";
import { type AppTests, PASSWORD } from "./fixture.js";

/** Registration: one answer whatever the address. */
export const registrationTests: AppTests = {
  "register - the same 200 for a new and an existing address": async (boot) => {
    const app = await boot();
    const first = await app.call("register new", "POST", "/api/auth/register", {
      body: { email: "reg@example.test", password: PASSWORD },
    });
    const again = await app.call("register existing", "POST", "/api/auth/register", {
      body: { email: " Reg@Example.test ", password: PASSWORD },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true });
    expect(again.text).toBe(first.text);
  },
};
