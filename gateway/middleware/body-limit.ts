import type { IncomingMessage } from "node:http";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ErrorCode, localizedError, PlatformError } from "../../contracts/errors.ts";
import { jsonNestsDeeperThan, tooDeepDetail } from "../../contracts/json-nesting.ts";
import type { GatewayEnv } from "../gateway-env.ts";

/** Routes that stream their bodies (uploads) enforce their own limits while streaming. */
const STREAMED_TYPES = ["multipart/form-data", "application/octet-stream"];
const FORM_TYPE = "application/x-www-form-urlencoded";
const UTF8 = new TextDecoder();

function tooLarge(maxBytes: number): PlatformError {
  return new PlatformError(ErrorCode.PayloadTooLarge, `request body is larger than ${maxBytes} bytes`);
}

function isBodiless(incoming: IncomingMessage): boolean {
  const length = incoming.headers["content-length"];
  return incoming.headers["transfer-encoding"] === undefined && (length === undefined || length === "0");
}

function tooDeep(maxDepth: number): PlatformError {
  const detail = tooDeepDetail(maxDepth);
  return localizedError(
    ErrorCode.InvalidArgument,
    "invalidParameter",
    { field: "body", detail },
    { field: "body" },
  );
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

export interface BodyLimits {
  maxBytes: number;
  /** How deep arrays and objects of a JSON body may nest. */
  maxJsonDepth: number;
}

/**
 * Refuses JSON and form bodies larger than `maxBytes`, without reading past the limit, and JSON
 * nested deeper than `maxJsonDepth`. On Node, a form body is read straight from the socket and
 * parsed once with URLSearchParams, which every later reader (validators, `parseBody`) takes from
 * the request's body cache: the token endpoint lives on form bodies, and a web Request plus
 * multipart-capable parsing costs more than issuing the token. Any other body is what routes read
 * as JSON (`c.req.json()` parses whatever type it is given): its text is checked and cached the
 * same way, so no route ever parses text that was not checked.
 */
export function limitBody({ maxBytes, maxJsonDepth }: BodyLimits): MiddlewareHandler<GatewayEnv> {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge(maxBytes);
    },
  });
  const checked = (text: string): string => {
    if (jsonNestsDeeperThan(text, maxJsonDepth)) throw tooDeep(maxJsonDepth);
    // A promise, as Hono caches bodies (whatever its type says): its readers, `json()` too, chain on it.
    return Promise.resolve(text) as unknown as string;
  };
  return async function limitBody(c, next) {
    const type = c.req.header("content-type") ?? "";
    if (STREAMED_TYPES.some((streamed) => type.startsWith(streamed))) return next();
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    // Without a length or chunks a request has no body (RFC 9112 §6.3). Asking the web Request
    // whether it has one would build it, with its stream and abort signal, for nothing.
    if (incoming && isBodiless(incoming)) return next();
    if (incoming) {
      const body = await readIncoming(incoming, maxBytes);
      if (type.startsWith(FORM_TYPE)) {
        const form = Promise.resolve(new URLSearchParams(body.toString("utf8")));
        c.req.bodyCache.formData = form as unknown as FormData;
      } else {
        // Decoded as a web Request decodes text, a byte order mark dropped.
        c.req.bodyCache.text = checked(UTF8.decode(body));
      }
      return next();
    }
    return limit(c, async () => {
      if (!type.startsWith(FORM_TYPE)) c.req.bodyCache.text = checked(await c.req.text());
      await next();
    });
  };
}
