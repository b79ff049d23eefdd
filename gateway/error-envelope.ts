import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ErrorCode, localizedError, PlatformError } from "../contracts/errors.ts";
import { preferredLanguage, renderMessage } from "../contracts/messages.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { isDatabaseUnavailable } from "../runtime/database.ts";
import type { ApiSurface, GatewayEnv } from "./gateway-env.ts";
import { declaredSurface } from "./middleware/surface.ts";

/** Spec 001: a well-formed call answers 200 and reports a semantic failure in the envelope. */
const SEMANTIC_ON_WORKFLOW: ReadonlySet<ErrorCode> = new Set([
  ErrorCode.NotFound,
  ErrorCode.Conflict,
  ErrorCode.Unprocessable,
]);

interface ErrorMapping {
  status: ContentfulStatusCode;
  errno: number;
}

/** The single mapping of error codes to HTTP status and `errno`. */
const ERROR_MAPPING: Record<ErrorCode, ErrorMapping> = {
  [ErrorCode.InvalidArgument]: { status: 400, errno: 10001 },
  [ErrorCode.Unauthenticated]: { status: 401, errno: 10007 },
  [ErrorCode.PermissionDenied]: { status: 403, errno: 10003 },
  [ErrorCode.NotFound]: { status: 404, errno: 10004 },
  [ErrorCode.Conflict]: { status: 409, errno: 10009 },
  [ErrorCode.PayloadTooLarge]: { status: 413, errno: 10013 },
  [ErrorCode.UnsupportedMediaType]: { status: 415, errno: 10015 },
  [ErrorCode.RangeNotSatisfiable]: { status: 416, errno: 10016 },
  [ErrorCode.RateLimited]: { status: 429, errno: 10029 },
  [ErrorCode.Unprocessable]: { status: 500, errno: -2 },
  [ErrorCode.Unavailable]: { status: 503, errno: 10503 },
  [ErrorCode.DeadlineExceeded]: { status: 503, errno: 10504 },
  [ErrorCode.Internal]: { status: 500, errno: 10500 },
};

/**
 * Spec 000's error text for a missing, invalid or expired token, which its own surfaces (notification,
 * signature) give whatever the reason: the reason is in `WWW-Authenticate`.
 */
const SPEC_000_TOKEN_REFUSED = "ACCESS_TOKEN_EXPIRED";

/** RFC 6749's code for a failure of the platform's own rather than of the request. */
function oauthErrorOf(error: PlatformError): string {
  if (error.oauthError) return error.oauthError;
  if (error.code === ErrorCode.Unavailable || error.code === ErrorCode.DeadlineExceeded)
    return "temporarily_unavailable";
  if (error.code === ErrorCode.Internal) return "server_error";
  return "invalid_request";
}

export function errorMapping(code: ErrorCode): ErrorMapping {
  return ERROR_MAPPING[code];
}

export function envelopeFor(
  surface: ApiSurface,
  error: PlatformError,
  message = error.message,
): Record<string, unknown> {
  const errno = error.reason?.errno ?? ERROR_MAPPING[error.code].errno;
  if (surface === "oauth") return { error: oauthErrorOf(error), error_description: error.message };
  const refusedToken = error.code === ErrorCode.Unauthenticated;
  if (surface === "open-api")
    return { errno, error: refusedToken ? SPEC_000_TOKEN_REFUSED : error.message, total: 0 };
  // Spec 000's signature API: a refused token is 10007; any other failure is errno -2 with its text.
  if (surface === "signature") {
    if (refusedToken) return { errno, error: SPEC_000_TOKEN_REFUSED, total: 0 };
    return { errno: -2, error: error.message, total: 0 };
  }
  return { errno, ecode: error.reason?.ecode ?? error.code, error: message, total: 0, entities: [] };
}

/**
 * The framework's own refusals of a request (a body its validators cannot parse, a media type the
 * route does not take) are the caller's fault, not ours: they keep their 4xx meaning.
 */
function refusedByHono(error: HTTPException): PlatformError | undefined {
  if (error.status === 400) return new PlatformError(ErrorCode.InvalidArgument, `body: ${error.message}`);
  if (error.status === 413)
    return new PlatformError(ErrorCode.PayloadTooLarge, "body: larger than this operation accepts");
  if (error.status === 415)
    return new PlatformError(
      ErrorCode.UnsupportedMediaType,
      "content-type: not a media type this operation accepts",
    );
  return undefined;
}

/**
 * Turns anything thrown into a PlatformError: a database out of reach is a 503 the caller may retry;
 * anything else that is not one is a fault of ours and says nothing more.
 */
export function asPlatformError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  if (error instanceof HTTPException) {
    const refused = refusedByHono(error);
    if (refused) return refused;
  }
  if (isDatabaseUnavailable(error))
    return new PlatformError(ErrorCode.Unavailable, "database unavailable; retry later", { cause: error });
  return localizedError(ErrorCode.Internal, "internal", {}, { cause: error });
}

/**
 * The HTTP status of an error on a surface: spec 001's semantic refusals answer 200 on the workflow
 * surface; elsewhere (the admin API, the files) a workflow refusal answers the status its errno's
 * kind names (40301 → 403, 42201 → 422, 50101 → 501), the others their code's.
 */
export function httpStatusOf(surface: ApiSurface, error: PlatformError): ContentfulStatusCode {
  if (surface === "workflow" && SEMANTIC_ON_WORKFLOW.has(error.code)) return 200;
  if (error instanceof WorkflowRefusal) return Math.floor(error.reason!.errno! / 100) as ContentfulStatusCode;
  return ERROR_MAPPING[error.code].status;
}

export function errorResponse(c: Context<GatewayEnv>, error: PlatformError): Response {
  const surface: ApiSurface = c.get("surface") ?? declaredSurface(c) ?? "platform";
  if (error.challenge) c.header("WWW-Authenticate", error.challenge);
  if (error.retryAfterSeconds !== undefined) c.header("Retry-After", String(error.retryAfterSeconds));
  if (surface === "oauth") {
    c.header("Cache-Control", "no-store");
    c.header("Pragma", "no-cache");
  }
  const status = httpStatusOf(surface, error);
  const message =
    surface === "workflow" ? workflowMessage(error, c.req.header("accept-language")) : error.message;
  return c.json(envelopeFor(surface, error, message), status);
}

/** Spec 001: the error text follows the caller's Accept-Language, the same errno and ecode in either. */
function workflowMessage(error: PlatformError, acceptLanguage: string | undefined): string {
  if (error instanceof WorkflowRefusal) return error.messageIn(preferredLanguage(acceptLanguage));
  if (error.localized)
    return renderMessage(error.localized.key, error.localized.params, preferredLanguage(acceptLanguage));
  return error.message;
}
