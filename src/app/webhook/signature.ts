import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Whether `header` (X-Hub-Signature-256: `sha256=<hex>`) is the HMAC-SHA256 of the raw body under
 * `secret`, compared in constant time. Checked on the bytes as received, before anything parses them.
 */
export function signatureMatches(secret: string, body: Buffer, header: string): boolean {
  const hex = /^sha256=([0-9a-f]{64})$/i.exec(header.trim())?.[1];
  if (!hex) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(hex, "hex"));
}
