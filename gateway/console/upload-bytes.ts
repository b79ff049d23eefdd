import type { Readable } from "node:stream";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";

/** A file part read into memory, refused (413) past `maxBytes`, naming the form's `field`. */
export async function bytesOf(stream: Readable, maxBytes: number, field = "image"): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes)
      throw new PlatformError(ErrorCode.PayloadTooLarge, `${field}: larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
