import { type MessageKey, type MessageParams, renderMessage } from "./messages.ts";

/**
 * The one error type of the platform. Every failure that reaches a client is a PlatformError with
 * a code; the gateway maps the code to an HTTP status and to the envelope of the API surface.
 */
export const ErrorCode = {
  /** The request is malformed or breaks a rule; the message names the field. */
  InvalidArgument: "INVALID_ARGUMENT",
  /** No token, or a token that is invalid or expired. */
  Unauthenticated: "UNAUTHENTICATED",
  /** A valid token that lacks the scope or token kind the operation needs. */
  PermissionDenied: "PERMISSION_DENIED",
  NotFound: "NOT_FOUND",
  /** The resource changed under the caller (a task already handled, a duplicate). */
  Conflict: "CONFLICT",
  PayloadTooLarge: "PAYLOAD_TOO_LARGE",
  UnsupportedMediaType: "UNSUPPORTED_MEDIA_TYPE",
  /** A byte range that lies outside the file. */
  RangeNotSatisfiable: "RANGE_NOT_SATISFIABLE",
  RateLimited: "RATE_LIMITED",
  /** The work was understood but could not be done (a PDF that cannot be sealed, say). */
  Unprocessable: "UNPROCESSABLE",
  /** A dependency (database, broker, workers) cannot be reached right now; retrying later may help. */
  Unavailable: "UNAVAILABLE",
  /** No worker answered within the deadline. */
  DeadlineExceeded: "DEADLINE_EXCEEDED",
  Internal: "INTERNAL",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface PlatformErrorOptions {
  /** The request field the error is about, when there is one. */
  field?: string;
  /** `WWW-Authenticate` value for a 401, telling the client how to authenticate. */
  challenge?: string;
  /** RFC 6749 error code, for errors of the OAuth2 endpoints. */
  oauthError?: string;
  /** `Retry-After` of a refusal that lasts a while, in seconds. */
  retryAfterSeconds?: number;
  cause?: unknown;
  /** The message's text in every language, for surfaces that answer in the caller's. */
  localized?: { key: MessageKey; params: MessageParams };
  /** A finer `errno` and `ecode` than the code's, for failures a surface tells apart (the workflow's). */
  reason?: { errno: number; ecode: string };
}

export class PlatformError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly challenge: string | undefined;
  readonly oauthError: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly localized: PlatformErrorOptions["localized"];
  readonly reason: PlatformErrorOptions["reason"];

  constructor(code: ErrorCode, message: string, options: PlatformErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PlatformError";
    this.code = code;
    this.field = options.field;
    this.challenge = options.challenge;
    this.oauthError = options.oauthError;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.localized = options.localized;
    this.reason = options.reason;
  }
}

export function isPlatformError(error: unknown): error is PlatformError {
  return error instanceof PlatformError;
}

/** An error whose text exists in every language of `MESSAGES`; its own message is the English one. */
export function localizedError(
  code: ErrorCode,
  key: MessageKey,
  params: MessageParams = {},
  options: Omit<PlatformErrorOptions, "localized"> = {},
): PlatformError {
  return new PlatformError(code, renderMessage(key, params, "en"), {
    ...options,
    localized: { key, params },
  });
}
