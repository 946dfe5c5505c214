import QRCode from "qrcode";
import type { Page } from "./pages.js";

/** The longest text `POST /ui/qr` draws: an otpauth URI is well under it. */
const MAX_TEXT = 1024;

/**
 * `POST /ui/qr` with `{ text }`: the text as a QR code in SVG, drawn here with the `qrcode`
 * package (nothing leaves the server). A POST, so a TOTP secret never lands in a URL or a log.
 */
export async function qrCodePage(body: unknown): Promise<Page> {
  const text = (body as { text?: unknown } | undefined)?.text;
  if (typeof text !== "string" || text.length === 0 || text.length > MAX_TEXT)
    return {
      status: 400,
      contentType: "text/plain; charset=utf-8",
      body: `Send JSON { "text": "…" } with 1 to ${MAX_TEXT} characters.`,
    };
  const svg = await QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { status: 200, contentType: "image/svg+xml; charset=utf-8", body: svg };
}
