import { describe, expect, it } from "vitest";
import { createDeviceTokens, DEVICE_ACCOUNTS_MAX } from "./device-token.js";

const SECRET = "device-token-test-secret-8Lw0kq1Rk3yq7pQ2vT9sN4mX6bH5dJ0c";
const OTHER = "another-device-token-secret-Zr2Xq8Nc4Lp6Vb1Mt3Kw5Hy7Jd9Gf0s";

describe("device tokens", () => {
  const devices = createDeviceTokens([SECRET]);

  it("remember - a new browser gets a random device id naming the account; reading it back knows that account only", () => {
    const token = devices.remember(null, "user-1");
    const device = devices.read(token);
    expect(device?.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(devices.knows(device, "user-1")).toBe(true);
    expect(devices.knows(device, "user-2")).toBe(false);
    expect(devices.read(devices.remember(null, "user-1"))?.id).not.toBe(device?.id);
  });

  it("the token names no user id: accounts are keyed hashes", () => {
    const token = devices.remember(null, "ada@example.test");
    expect(token).not.toContain("ada");
    expect(token.split(".")[0]).toBe("d1");
  });

  it("remember - keeps the device id, adds accounts once, moves a returning one to the newest place, keeps the 10 most recent", () => {
    let device = devices.read(devices.remember(null, "user-0"));
    const id = device?.id;
    for (let i = 1; i <= DEVICE_ACCOUNTS_MAX; i++)
      device = devices.read(devices.remember(device, `user-${i}`));
    expect(device?.id).toBe(id);
    expect(device?.tags).toHaveLength(DEVICE_ACCOUNTS_MAX);
    expect(devices.knows(device, "user-0")).toBe(false);
    expect(devices.knows(device, "user-1")).toBe(true);
    device = devices.read(devices.remember(device, "user-1"));
    expect(device?.tags).toHaveLength(DEVICE_ACCOUNTS_MAX);
    device = devices.read(devices.remember(device, "user-11"));
    expect(devices.knows(device, "user-1")).toBe(true);
    expect(devices.knows(device, "user-2")).toBe(false);
  });

  it("rememberNobody - adds a tag that matches no account, keeping the token's shape", () => {
    const known = devices.read(devices.remember(null, "user-1"));
    const after = devices.read(devices.rememberNobody(known));
    expect(after?.id).toBe(known?.id);
    expect(after?.tags).toHaveLength(2);
    expect(devices.knows(after, "user-1")).toBe(true);
    expect(devices.remember(null, "x").length).toBe(devices.rememberNobody(null).length);
  });

  it("read - a tampered, truncated, re-tagged or foreign token, or garbage, is no device", () => {
    const token = devices.remember(null, "user-1");
    const [version, id, tags, mac] = token.split(".") as [string, string, string, string];
    const flip = (text: string) => (text[0] === "A" ? "B" : "A") + text.slice(1);
    const other = devices.remember(null, "user-2").split(".")[2];
    for (const forged of [
      `${version}.${flip(id)}.${tags}.${mac}`,
      `${version}.${id}.${other}.${mac}`,
      `${version}.${id}.${tags}~${other}.${mac}`,
      `${version}.${id}.${tags}.${flip(mac)}`,
      `${version}.${id}.${tags}`,
      `d2.${id}.${tags}.${mac}`,
      `${token}.x`,
      createDeviceTokens([OTHER]).remember(null, "user-1"),
      "",
      "not a token",
      "x".repeat(5000),
    ]) {
      expect(devices.read(forged), forged).toBeNull();
    }
    expect(devices.read(undefined)).toBeNull();
    expect(devices.knows(null, "user-1")).toBe(false);
  });

  it("rotation - a token made under the old secret still verifies and still names its accounts after a new secret is put first", () => {
    const before = createDeviceTokens([OTHER]);
    const token = before.remember(null, "user-1");
    const rotated = createDeviceTokens([SECRET, OTHER]);
    const device = rotated.read(token);
    expect(rotated.knows(device, "user-1")).toBe(true);
    const renewed = rotated.read(rotated.remember(device, "user-1"));
    expect(renewed?.tags).toHaveLength(1);
    expect(renewed?.id).toBe(device?.id);
    expect(
      createDeviceTokens([SECRET]).knows(
        createDeviceTokens([SECRET]).read(rotated.remember(device, "user-1")),
        "user-1",
      ),
    ).toBe(true);
  });
});
