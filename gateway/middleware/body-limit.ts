import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import type { GatewayEnv } from "../gateway-env.ts";

/** Routes that stream their bodies (uploads) enforce their own limits while streaming. */
const STREAMED_TYPES = ["multipart/form-data", "application/octet-stream"];

/** Refuses JSON and form bodies larger than `maxBytes`, without reading past the limit. */
export function limitBody(maxBytes: number): MiddlewareHandler<GatewayEnv> {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new PlatformError(ErrorCode.PayloadTooLarge, `request body is larger than ${maxBytes} bytes`);
    },
  });
  return async function limitBody(c, next) {
    const type = c.req.header("content-type") ?? "";
    if (STREAMED_TYPES.some((streamed) => type.startsWith(streamed))) return next();
    return limit(c, next);
  };
}
