import fc from "fast-check";
import { nastyString } from "./arbitraries.ts";

export interface Part {
  name: string;
  filename?: string;
  /** Written as given: may be a header value that is not one. */
  type?: string;
  data: Buffer | string;
}

/** A multipart/form-data body as the bytes a client writes, framing and all. */
export function multipartBody(
  parts: readonly Part[],
  boundary: string,
  options: { closed?: boolean } = {},
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let disposition = `form-data; name="${part.name}"`;
    if (part.filename !== undefined) disposition += `; filename="${part.filename}"`;
    const headers = [`Content-Disposition: ${disposition}`];
    if (part.type !== undefined) headers.push(`Content-Type: ${part.type}`);
    chunks.push(Buffer.from(`--${boundary}\r\n${headers.join("\r\n")}\r\n\r\n`, "utf8"));
    chunks.push(Buffer.from(part.data));
    chunks.push(Buffer.from("\r\n"));
  }
  if (options.closed ?? true) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export const BOUNDARY = "fuzz-boundary-7MA4YWxkTrZu0gW";

/** Content types of a part: real ones, wrong ones and ones that are not content types. */
export const partType = fc.constantFrom(
  undefined,
  "application/pdf",
  "image/png",
  "text/plain",
  "application/json",
  "application/octet-stream",
  "multipart/mixed; boundary=inner",
  "text/html; charset=utf-16",
  "",
  ";;;",
  "image/svg+xml",
);

/** Part and file names: ordinary, empty, very long, with quotes, separators, traversal and odd text. */
export const partName: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom("file", "locations", "keyword", "thumbsizes", "qrCodeLocations", "keywordSeq"),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("", '"', "file\u0000", "../../file", "file\r\nX-Injected: 1", "файл"),
  },
  { weight: 1, arbitrary: nastyString.map((text) => text.replace(/[\r\n"]/g, "")) },
);

export const fileName: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("contract.pdf", "photo.png", "a", "") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "../../etc/passwd",
      "..\\..\\boot.ini",
      "/etc/passwd",
      "a\u0000.pdf",
      "%00.pdf",
      "CON.pdf",
      "\u202Efdp.exe",
      "😀.pdf",
      ".pdf",
      "a/b/c.pdf",
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 256, max: 12_000 }).map((n) => `${"n".repeat(n)}.pdf`) },
  { weight: 1, arbitrary: nastyString.map((text) => text.replace(/[\r\n"]/g, "")) },
);
