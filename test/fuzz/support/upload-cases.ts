import fc from "fast-check";
import { nastyString } from "./arbitraries.ts";
import { UPLOAD_LIMIT_BYTES } from "./fuzz-platform.ts";
import { BOUNDARY, fileName, multipartBody, type Part, partName, partType } from "./multipart.ts";

/** How a multipart body is broken, if it is. */
export const CORRUPTIONS = [
  "none",
  "truncated",
  "unclosed",
  "lf-only",
  "preamble",
  "boundary-mismatch",
  "no-boundary",
  "quoted-boundary",
  "overlong-boundary",
  "two-files",
  "many-fields",
  "not-multipart",
  "headers-only",
] as const;

export type Corruption = (typeof CORRUPTIONS)[number];

export interface UploadCase {
  corruption: Corruption;
  withFile: boolean;
  /** The file part's content, as sent when the body is not broken. */
  content: Buffer;
  filename: string;
  fields: { name: string; value: string; type: string | undefined }[];
  headers: Record<string, string>;
  body: Buffer;
}

/** A file's content: random bytes, a PDF header over junk, or past the upload limit. */
const content: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 4096 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 2,
    arbitrary: fc
      .uint8Array({ maxLength: 512 })
      .map((bytes) => Buffer.concat([Buffer.from("%PDF-1.7\n"), bytes])),
  },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(UPLOAD_LIMIT_BYTES + 1, 0x41)) },
);

/** Text fields: those the routes read, with values of every kind, and others. */
const field = fc.record({
  name: partName,
  value: fc.oneof(
    nastyString,
    fc.constantFrom(
      "200x150,64x64",
      "0x0",
      "2000x2000",
      "1x1,".repeat(10),
      "[]",
      '[{"pageNo":1,"x":1e309}]',
      '[{"left":-0}]',
      "2",
      "18446744073709551616",
    ),
    fc.integer({ min: 1000, max: 300_000 }).map((n) => "v".repeat(n)),
  ),
  type: partType,
});

function corrupt(corruption: Corruption, parts: Part[]): { headers: Record<string, string>; body: Buffer } {
  const type = `multipart/form-data; boundary=${BOUNDARY}`;
  const whole = multipartBody(parts, BOUNDARY);
  switch (corruption) {
    case "truncated":
      return { headers: { "content-type": type }, body: whole.subarray(0, Math.floor(whole.length / 2)) };
    case "unclosed":
      return { headers: { "content-type": type }, body: multipartBody(parts, BOUNDARY, { closed: false }) };
    case "lf-only":
      return {
        headers: { "content-type": type },
        body: Buffer.from(whole.toString("latin1").replaceAll("\r\n", "\n"), "latin1"),
      };
    case "preamble":
      return {
        headers: { "content-type": type },
        body: Buffer.concat([Buffer.from(`garbage --${BOUNDARY}x\r\n`), whole, Buffer.from("epilogue")]),
      };
    case "boundary-mismatch":
      return { headers: { "content-type": "multipart/form-data; boundary=another-boundary" }, body: whole };
    case "no-boundary":
      return { headers: { "content-type": "multipart/form-data" }, body: whole };
    case "quoted-boundary":
      return {
        headers: { "content-type": `multipart/form-data; boundary="${BOUNDARY}"; charset=utf-8` },
        body: whole,
      };
    case "overlong-boundary": {
      const long = "b".repeat(200);
      return {
        headers: { "content-type": `multipart/form-data; boundary=${long}` },
        body: multipartBody(parts, long),
      };
    }
    case "two-files":
      return {
        headers: { "content-type": type },
        body: multipartBody([...parts, ...parts.filter((part) => part.filename !== undefined)], BOUNDARY),
      };
    case "many-fields": {
      const extra = Array.from({ length: 25 }, (_, i) => ({ name: `f${i}`, data: "x" }));
      return { headers: { "content-type": type }, body: multipartBody([...extra, ...parts], BOUNDARY) };
    }
    case "not-multipart":
      return { headers: { "content-type": "application/octet-stream" }, body: whole };
    case "headers-only":
      return {
        headers: { "content-type": type },
        body: Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n`,
        ),
      };
    default:
      return { headers: { "content-type": type }, body: whole };
  }
}

/**
 * Uploads of every kind: a file part (or none) among text fields, each name, file name and
 * content type odd or not, the body well formed or broken in one of the ways clients break it.
 */
export const uploadCase: fc.Arbitrary<UploadCase> = fc
  .record({
    corruption: fc.oneof(
      { weight: 6, arbitrary: fc.constant<Corruption>("none") },
      { weight: 6, arbitrary: fc.constantFrom(...CORRUPTIONS) },
    ),
    content,
    filename: fileName,
    withFile: fc.oneof(
      { weight: 5, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    ),
    fileType: partType,
    fields: fc.array(field, { maxLength: 4 }),
  })
  .map(({ corruption, content, filename, withFile, fileType, fields }) => {
    const parts: Part[] = fields.map((f) => ({ name: f.name, data: f.value, type: f.type }));
    if (withFile) parts.push({ name: "file", filename, type: fileType, data: content });
    const { headers, body } = corrupt(corruption, parts);
    return { corruption, withFile, content, filename, fields, headers, body };
  });

/**
 * A name a part header can carry as it is: no control characters (which make the header
 * malformed), no quote or backslash (which the quoted string would take as its end or an escape).
 */
const plainName = (name: string) =>
  name !== "" &&
  ![...name].some((char) => char === '"' || char === "\\" || char.charCodeAt(0) < 0x20 || char === "\x7F");

/** An upload well formed and within every limit, so it must succeed: one file part named "file". */
export function ordinaryUpload(upload: UploadCase): boolean {
  return (
    upload.corruption === "none" &&
    upload.withFile &&
    upload.content.length <= UPLOAD_LIMIT_BYTES &&
    // An empty file name is a browser's "no file chosen".
    plainName(upload.filename) &&
    upload.fields.every(
      (f) =>
        plainName(f.name) &&
        f.name !== "file" &&
        f.name !== "thumbsizes" &&
        // A part of this type is a file to the multipart parser, filename or not: a second one.
        f.type !== "application/octet-stream" &&
        !f.value.includes("\0") &&
        Buffer.byteLength(f.value) <= 256 * 1024,
    )
  );
}
