import { describe, expect, it } from "vitest";
import { createKeyedHash } from "../tokens/keys.js";
import { createTwoFactorImporter, importedTotpSecretProblem } from "./imported.js";
import { findRecoveryCode } from "./recovery-codes.js";
import { createSecretBox } from "./secret-box.js";

const KEY = "an imported two-factor key, 9f8e7d6c5b4a3210fedcba9876543210";

describe("createTwoFactorImporter", () => {
  it("seals the secret and hashes the codes as the core opens and checks them with the same key", async () => {
    const settings = await createTwoFactorImporter(KEY).settings({
      totpSecret: "jbsw y3dp ehpk 3pxp jbsw y3dp ehpk 3pxp==",
      recoveryCodes: ["abcde-12345", "ZYXWV-98765"],
    });
    expect(settings.methods).toEqual(["totp"]);
    expect(settings.preferredMethod).toBe("totp");
    expect(await createSecretBox([KEY]).open(settings.totpSecretEncrypted ?? "")).toBe(
      "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
    );
    const keyed = createKeyedHash([KEY], "recovery codes v1");
    expect(findRecoveryCode(keyed, settings.recoveryCodeHashes, "ABCDE12345")).toBeDefined();
    expect(findRecoveryCode(keyed, settings.recoveryCodeHashes, "zyxwv-98765")).toBeDefined();
    expect(findRecoveryCode(keyed, settings.recoveryCodeHashes, "ABCDE-12346")).toBeUndefined();
    await expect(
      createSecretBox([`${KEY}-other`]).open(settings.totpSecretEncrypted ?? ""),
    ).rejects.toThrow();
  });

  it("refuses a weak key and a secret that is not base32 or too short", async () => {
    expect(() => createTwoFactorImporter("short")).toThrow(/at least 32 bytes/);
    await expect(createTwoFactorImporter(KEY).settings({ totpSecret: "not base32!" })).rejects.toThrow(
      /not base32/,
    );
    expect(importedTotpSecretProblem("JBSWY3DP")).toMatch(/fewer than 80/);
    expect(importedTotpSecretProblem("JBSWY3DPEHPK3PXP")).toBeNull();
  });
});
