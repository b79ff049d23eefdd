import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import busboy from "busboy";
import type { Context } from "hono";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import {
  type FileStorage,
  StoredFileTooLarge,
  type StoredUpload,
  type WriteOptions,
} from "../runtime/storage/file-storage.ts";
import type { GatewayEnv } from "./gateway-env.ts";

export interface UploadedFile<Stored> {
  filename: string;
  mime: string;
  stored: Stored;
}

export interface MultipartUpload<Stored> {
  fields: Map<string, string>;
  file: UploadedFile<Stored> | undefined;
}

/** Form fields are small: a JSON list of locations is the largest a client sends. */
const MAX_FIELD_BYTES = 256 * 1024;
const MAX_FIELDS = 20;

/**
 * Reads a multipart/form-data request as it streams in: text fields into memory (bounded), and
 * the one file field handed to `store` as a stream, so an upload never sits whole in memory. A
 * second file, an unknown file field or an oversized field is refused. A refusal comes once the
 * store has finished or failed: what it stored by then is the caller's to remove.
 */
export async function readMultipart<Stored>(
  c: Context<GatewayEnv>,
  fileField: string,
  store: (stream: Readable) => Promise<Stored>,
): Promise<MultipartUpload<Stored>> {
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("multipart/form-data")) {
    throw new PlatformError(ErrorCode.UnsupportedMediaType, "the body must be multipart/form-data");
  }
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const source = incoming ?? Readable.fromWeb((c.req.raw.body ?? new ReadableStream()) as never);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": type },
      limits: { fieldSize: MAX_FIELD_BYTES, fields: MAX_FIELDS, files: 1, parts: MAX_FIELDS + 1 },
      // Let a file part run ahead of the disk by up to 1 MB before the socket is paused.
      fileHwm: 1024 * 1024,
      // Browsers and HTTP clients send a file's name as raw UTF-8, not busboy's default Latin-1.
      defParamCharset: "utf8",
    });
  } catch (error) {
    throw new PlatformError(
      ErrorCode.InvalidArgument,
      `malformed multipart body: ${(error as Error).message}`,
    );
  }
  const fields = new Map<string, string>();
  let file: UploadedFile<Stored> | undefined;
  let storing: Promise<void> | undefined;
  return new Promise((resolve, reject) => {
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      source.unpipe(parser);
      source.resume();
      // Unpiped, a file part being stored would never end and its store would hold its partial
      // file open for good: the parser ends it with the error instead, so the store removes what
      // it wrote. The caller hears of the failure once that is done, and removes a stored upload.
      parser.destroy(error instanceof Error ? error : new Error(String(error)));
      Promise.resolve(storing).then(() => reject(error));
    };
    const refuse = (message: string) => fail(new PlatformError(ErrorCode.InvalidArgument, message));
    // Parts the parser had already read when the form was refused still come: they are ignored.
    parser.on("field", (name, value, info) => {
      if (failed) return;
      if (info.valueTruncated) return refuse(`${name}: longer than ${MAX_FIELD_BYTES} bytes`);
      // Postgres keeps no NUL in text; a field or file name with one would fail there instead.
      // (A part with an empty name comes without one, a value in a charset busboy cannot decode too.)
      if (name?.includes("\0") || value?.includes("\0"))
        return refuse(`${name}: must not contain NUL (U+0000) characters`);
      if (!fields.has(name)) fields.set(name, value);
    });
    parser.on("file", (name, stream, info) => {
      // A form that ends early or is refused destroys the file stream with the parser's error
      // (which the parser reports too), maybe before a store has attached: unheard, it would end
      // the process.
      stream.on("error", () => {});
      if (failed) {
        stream.resume();
        return;
      }
      if (name !== fileField || storing) {
        stream.resume();
        return refuse(`${name}: unexpected file field; send one file as "${fileField}"`);
      }
      if (info.filename?.includes("\0")) {
        stream.resume();
        return refuse(`${name}: the file name must not contain NUL (U+0000) characters`);
      }
      storing = store(stream).then(
        (stored) => {
          file = { filename: info.filename ?? fileField, mime: info.mimeType, stored };
        },
        (error: unknown) => {
          stream.resume();
          fail(error);
        },
      );
    });
    parser.on("fieldsLimit", () => refuse(`more than ${MAX_FIELDS} form fields`));
    parser.on("filesLimit", () => refuse(`one file only, as "${fileField}"`));
    parser.on("error", (error: Error) => refuse(`malformed multipart body: ${error.message}`));
    parser.on("close", () => {
      if (failed) return;
      Promise.resolve(storing).then(() => {
        if (!failed) resolve({ fields, file });
      });
    });
    source.on("error", fail);
    source.pipe(parser);
  });
}

/** Streams an upload into storage under `key`, past `maxBytes` refused with 413 and nothing kept. */
export async function storeUpload(
  storage: FileStorage,
  key: string,
  stream: Readable,
  maxBytes: number,
  options?: WriteOptions,
): Promise<StoredUpload> {
  try {
    return await storage.write(key, stream, maxBytes, options);
  } catch (error) {
    if (error instanceof StoredFileTooLarge) {
      throw new PlatformError(ErrorCode.PayloadTooLarge, `file: larger than ${error.maxBytes} bytes`);
    }
    throw error;
  }
}
