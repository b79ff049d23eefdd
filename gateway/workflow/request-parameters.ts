import type { Context } from "hono";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import type { GatewayEnv } from "../gateway-env.ts";

export type RequestParameters = Record<string, unknown>;

/**
 * Spec 001's operations take their parameters in the query string or, for larger values, in the
 * body as a form or a JSON object with the same names. A body value wins over the query's.
 */
export async function requestParameters(c: Context<GatewayEnv>): Promise<RequestParameters> {
  const parameters: RequestParameters = { ...c.req.query() };
  const type = c.req.header("content-type") ?? "";
  if (type.startsWith("application/json")) {
    const body = await c.req.json().catch(() => {
      throw new PlatformError(ErrorCode.InvalidArgument, "the body is not valid JSON");
    });
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new PlatformError(ErrorCode.InvalidArgument, "the body must be a JSON object of parameters");
    }
    Object.assign(parameters, body);
  } else if (type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data")) {
    const form = await c.req.parseBody().catch(() => {
      throw new PlatformError(ErrorCode.InvalidArgument, "the body is not a valid form");
    });
    Object.assign(parameters, form);
  }
  return parameters;
}
