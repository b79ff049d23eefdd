import type { IncomingMessage } from "node:http";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import type { GatewayEnv } from "../gateway-env.ts";

/** Routes that stream their bodies (uploads) enforce their own limits while streaming. */
const STREAMED_TYPES = ["multipart/form-data", "application/octet-stream"];
const FORM_TYPE = "application/x-www-form-urlencoded";

function tooLarge(maxBytes: number): PlatformError {
  return new PlatformError(ErrorCode.PayloadTooLarge, `request body is larger than ${maxBytes} bytes`);
}

function isBodiless(incoming: IncomingMessage): boolean {
  const length = incoming.headers["content-length"];
  return incoming.headers["transfer-encoding"] === undefined && (length === undefined || length === "0");
}

/** Reads a Node request body, refusing it as soon as it passes `maxBytes`. */
async function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(incoming.headers["content-length"] ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Refuses JSON and form bodies larger than `maxBytes`, without reading past the limit. On Node, a
 * form body is read straight from the socket and parsed once with URLSearchParams, which every
 * later reader (validators, `parseBody`) takes from the request's body cache: the token endpoint
 * lives on form bodies, and a web Request plus multipart-capable parsing costs more than issuing
 * the token.
 */
export function limitBody(maxBytes: number): MiddlewareHandler<GatewayEnv> {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge(maxBytes);
    },
  });
  return async function limitBody(c, next) {
    const type = c.req.header("content-type") ?? "";
    if (STREAMED_TYPES.some((streamed) => type.startsWith(streamed))) return next();
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    // Without a length or chunks a request has no body (RFC 9112 §6.3). Asking the web Request
    // whether it has one would build it, with its stream and abort signal, for nothing.
    if (incoming && isBodiless(incoming)) return next();
    if (incoming && type.startsWith(FORM_TYPE)) {
      const body = await readIncoming(incoming, maxBytes);
      // A promise, as Hono itself caches bodies (whatever its type says): its readers chain on it.
      const form = Promise.resolve(new URLSearchParams(body.toString("utf8")));
      c.req.bodyCache.formData = form as unknown as FormData;
      return next();
    }
    return limit(c, next);
  };
}
