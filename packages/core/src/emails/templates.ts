import type { EmailKind } from "../ports/mailer.js";

/** Brand values every template shares; validated hex colours and an https/http logo URL. */
export interface Brand {
  name: string;
  primaryColor: string;
  textColor: string;
  backgroundColor: string;
  logoUrl: string | null;
}

/**
 * What each kind shows besides heading, intro and outro: a button (with its link), a one-time
 * code, or the sign-in details table. Placeholders are `{{slot}}`; a send fills them with escaped,
 * localized strings, so a template is compiled once and never per send.
 */
export const KIND_LAYOUT: Readonly<
  Record<EmailKind, { button: boolean; code?: boolean; details?: boolean }>
> = {
  "email-verification": { button: true },
  "password-reset": { button: true },
  "no-principal-information": { button: true },
  "identity-provider-information": { button: true },
  "login-alert": { button: true, details: true },
  "two-factor-code": { button: false, code: true },
  "password-changed": { button: true },
  "registration-attempt": { button: true },
  "two-factor-changed": { button: true },
  "recovery-code-used": { button: true, details: true },
  "email-sign-in": { button: true, code: true },
  "email-change": { button: true },
  "email-changed": { button: false },
  "account-deleted": { button: false },
  "organization-invitation": { button: true },
  "webhook-disabled": { button: false },
};

/** Escapes a brand value for an MJML attribute or text (the compiled templates use the same). */
export const escapeAttribute = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const DETAIL_ROWS = ["time", "browser", "os", "ip"] as const;

/** The MJML source of one kind inside the shared layout. Hosts may replace it (`email.templates`). */
export function defaultTemplate(kind: EmailKind, brand: Brand): string {
  const layout = KIND_LAYOUT[kind];
  const header = brand.logoUrl
    ? `<mj-image src="${escapeAttribute(brand.logoUrl)}" alt="${escapeAttribute(brand.name)}" width="140px" align="left" padding="0" />`
    : `<mj-text font-size="20px" font-weight="700" color="${brand.primaryColor}" padding="0">${escapeAttribute(brand.name)}</mj-text>`;
  const details = layout.details
    ? `<mj-table padding="8px 0 16px" font-size="14px" line-height="22px">${DETAIL_ROWS.map(
        (row) =>
          `<tr><td style="padding:2px 12px 2px 0;color:#6b7280;white-space:nowrap">{{${row}Label}}</td><td style="padding:2px 0;word-break:break-word">{{${row}}}</td></tr>`,
      ).join("")}</mj-table>`
    : "";
  const code = layout.code
    ? `<mj-text align="center" font-size="32px" font-weight="700" letter-spacing="6px" padding="8px 0 16px" color="${brand.primaryColor}">{{code}}</mj-text>`
    : "";
  const button = layout.button
    ? `<mj-button href="{{link}}" background-color="${brand.primaryColor}" color="#ffffff" border-radius="6px" font-weight="600" align="left" padding="8px 0 16px">{{button}}</mj-button>
        <mj-text font-size="12px" color="#6b7280" padding="0 0 16px">{{linkFallback}}<br /><a href="{{link}}" style="color:${brand.primaryColor};word-break:break-all">{{link}}</a></mj-text>`
    : "";
  return `<mjml lang="{{locale}}">
  <mj-head>
    <mj-title>{{subject}}</mj-title>
    <mj-preview>{{intro}}</mj-preview>
    <mj-attributes>
      <mj-all font-family="-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif" />
      <mj-text font-size="16px" line-height="24px" color="${brand.textColor}" padding="0 0 16px" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="${brand.backgroundColor}" width="600px">
    <mj-section padding="24px 16px 8px">
      <mj-column>${header}</mj-column>
    </mj-section>
    <mj-section background-color="#ffffff" border-radius="8px" padding="24px 24px 8px">
      <mj-column>
        <mj-text font-size="22px" line-height="30px" font-weight="700">{{heading}}</mj-text>
        <mj-text>{{greeting}}</mj-text>
        <mj-text>{{intro}}</mj-text>
        ${details}${code}${button}
        <mj-text>{{outro}}</mj-text>
      </mj-column>
    </mj-section>
    <mj-section padding="16px">
      <mj-column>
        <mj-text font-size="12px" line-height="18px" color="#6b7280">{{footer}}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
}
