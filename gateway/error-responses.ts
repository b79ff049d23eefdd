import { z } from "@hono/zod-openapi";
import { ErrorCode } from "../contracts/errors.ts";
import { OAUTH_ERROR_CODES } from "../identity/oauth-errors.ts";
import { errorMapping } from "./error-envelope.ts";
import type { ApiSurface } from "./gateway-env.ts";

/** `10001 INVALID_ARGUMENT, …`: the errno of each code, from the one mapping the gateway answers with. */
const errnos = Object.values(ErrorCode)
  .map((code) => `${errorMapping(code).errno} ${code}`)
  .join(", ");

const responseError = z
  .object({
    errno: z
      .number()
      .int()
      .openapi({ description: `never 0 on a failure: ${errnos}` }),
    ecode: z.enum(ErrorCode),
    error: z.string().openapi({ description: "what went wrong, naming the field when one is at fault" }),
    total: z.literal(0),
    entities: z.array(z.unknown()).max(0),
  })
  .openapi("ErrorResponse", {
    description:
      "Spec 001's Response<T> of a failure: the envelope of the workflow API, the file and export services and the admin API",
  });

const openApiError = z
  .object({
    errno: z
      .number()
      .int()
      .openapi({ description: `never 0 on a failure: ${errnos}; -2 for a 500` }),
    error: z.string(),
    total: z.literal(0),
  })
  .openapi("OpenApiError", { description: "Spec 000's envelope of a failure" });

const signatureFailure = z
  .object({
    errno: z.number().int().openapi({ description: "10007 for a refused token, -2 for any other failure" }),
    error: z.string(),
    total: z.literal(0),
  })
  .openapi("SignatureFailure", { description: "Spec 000's envelope of a failure of the signature API" });

const oauthError = z
  .object({
    error: z.enum([...OAUTH_ERROR_CODES, "temporarily_unavailable", "server_error"]),
    error_description: z.string(),
  })
  .openapi("OAuthError", { description: "RFC 6749 §5.2 error" });

const ENVELOPES: Record<ApiSurface, z.ZodType> = {
  workflow: responseError,
  platform: responseError,
  "open-api": openApiError,
  signature: signatureFailure,
  oauth: oauthError,
};

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 416 | 429 | 500 | 503;

const MEANINGS: Record<ErrorStatus, string> = {
  400: "bad input: the message names the field and the rule it breaks",
  401: "no access token, or one that is invalid or expired",
  403: "the token lacks a scope the operation needs, or is of the wrong kind",
  404: "not found",
  409: "in conflict with what exists",
  413: "the body is larger than the operation accepts",
  415: "a content type the operation does not take",
  416: "a byte range outside the file",
  429: "too many requests; retry later",
  500: "the work was understood but could not be done",
  503: "a dependency (the database, the broker, a worker) is out of reach or did not answer in time; retry later",
};

/**
 * The error answers of an operation on `surface`, each in that surface's envelope (the one
 * `envelopeFor` writes) and with the status's usual meaning unless `meanings` says it closer.
 */
export function errorResponses(
  surface: ApiSurface,
  statuses: readonly ErrorStatus[],
  meanings: Partial<Record<ErrorStatus, string>> = {},
) {
  const content = { "application/json": { schema: ENVELOPES[surface] } };
  return Object.fromEntries(
    statuses.map((status) => [status, { description: meanings[status] ?? MEANINGS[status], content }]),
  );
}

/** The error answers of the operators' API, whose 401 is about the operator token, not an access token. */
export function operatorErrorResponses(
  statuses: readonly ErrorStatus[],
  meanings: Partial<Record<ErrorStatus, string>> = {},
) {
  return errorResponses("platform", [401, ...statuses], {
    401: "without the operator token (ADMIN_TOKEN)",
    ...meanings,
  });
}
