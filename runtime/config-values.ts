import { z } from "zod";
import { parseHostEntry } from "./template-hosts.ts";

/** How one environment variable's text becomes a value; each message says what is expected. */

export function integer(min: number, max: number, note = "") {
  const expected = `an integer from ${min} to ${max}${note}`;
  return z
    .string()
    .regex(/^\d+$/, expected)
    .transform(Number)
    .pipe(z.number().min(min, expected).max(max, expected));
}

const BOOLEANS: Readonly<Record<string, boolean>> = { true: true, false: false, 1: true, 0: false };

/** `true`, `false`, `1` or `0`; anything else is refused rather than read as false. */
export function boolean() {
  const expected = "true, false, 1 or 0";
  return z
    .string()
    .refine((value) => Object.hasOwn(BOOLEANS, value), expected)
    .transform((value) => BOOLEANS[value]!);
}

export function url(protocols: readonly string[]) {
  const expected = `a URL starting with ${protocols.map((p) => `${p}://`).join(" or ")}`;
  return z.string().refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol.replace(/:$/, ""));
    } catch {
      return false;
    }
  }, expected);
}

export function milliseconds(example: string) {
  return z
    .string()
    .regex(/^\d+(,\d+)*$/, `milliseconds separated by commas, such as ${example}`)
    .transform((value) => value.split(",").map(Number));
}

/** `name`, `*.domain` or an address (`[…]` for IPv6), each with `:port` or not, separated by commas. */
export function hostList() {
  return z
    .string()
    .refine(
      (value) => value.split(",").every((entry) => parseHostEntry(entry) !== undefined),
      "host names or addresses, each with a port or not (docs.example.edu, *.example.edu:8443, 10.0.0.5:8080), separated by commas",
    )
    .transform((value) => value.toLowerCase().split(","));
}

export function timeZone() {
  return z.string().refine((zone) => {
    try {
      new Intl.DateTimeFormat("en", { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, "an IANA time zone such as Asia/Shanghai");
}

/** 32 bytes as 64 hexadecimal digits or as base64 (`openssl rand -hex 32`, `openssl rand -base64 32`). */
export function secretKey() {
  const expected = "32 bytes as 64 hexadecimal digits or base64 (openssl rand -hex 32)";
  return z
    .string()
    .refine((value) => /^[0-9a-f]{64}$/i.test(value) || /^[A-Za-z0-9+/_-]{43}=?$/.test(value), expected)
    .transform((value) =>
      /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, "hex") : Buffer.from(value, "base64"),
    );
}
