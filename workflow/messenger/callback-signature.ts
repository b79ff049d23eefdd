import { createHmac, timingSafeEqual } from "node:crypto";

/** The headers a receiver checks: when the post was signed (Unix seconds), and the signature. */
export const TIMESTAMP_HEADER = "X-Platform-Timestamp";
export const SIGNATURE_HEADER = "X-Platform-Signature";

/** HMAC-SHA256 of `timestamp.body` under the app's secret, as the signature header writes it. */
export function callbackSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** The signing headers of one post of `body`, signed at `now`. */
export function signatureHeaders(secret: string, body: string, now: Date): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: callbackSignature(secret, timestamp, body) };
}

/**
 * A receiver's check, as docs/messenger-callbacks.md shows it: the signature matches and the
 * timestamp is within `toleranceSeconds` of `now`, so a post recorded and sent again later fails.
 */
export function verifyCallback(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  now: Date,
  toleranceSeconds = 300,
): boolean {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(callbackSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
