// Realistic values for every email kind, shared by the render benchmark and the screenshot check.
export const BRAND = {
  name: "Acme Cloud",
  primaryColor: "#4f46e5",
  textColor: "#111827",
  backgroundColor: "#f3f4f6",
  logoUrl: null,
};

export function valuesFor(kind) {
  return {
    email: "maximilian.mustermann-schwarzenegger@verwaltungsgesellschaft-beispiel.test",
    name: "Maximilian Mustermann",
    link: `https://app.example.test/${kind === "email-verification" ? "verify-email" : "reset-password"}?token=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8`,
    code: "042317",
    hours: 24,
    minutes: 30,
    providers: "GitHub, Google",
    method: "totp",
    change: "added",
    recoveryCodesLeft: 7,
    details: {
      time: "23. November 2026 um 07:00:00 UTC",
      browser: "Firefox 130",
      os: "Linux",
      ip: "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
    },
  };
}
