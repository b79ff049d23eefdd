import { ErrorCode, PlatformError } from "../contracts/errors.ts";

/** RFC 6749 §5.2 errors, answered with 400 (invalid_client with 401). */
export const OAUTH_ERROR_CODES = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "access_denied",
  "unsupported_response_type",
] as const;

export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

export function oauthError(error: OAuthErrorCode, description: string): PlatformError {
  return new PlatformError(ErrorCode.InvalidArgument, description, { oauthError: error });
}

/**
 * A client that could not be authenticated, or (`description`) one that did but may not have
 * tokens; `usedHeader` asks for the Basic challenge RFC 6749 requires.
 */
export function invalidClient(
  usedHeader: boolean,
  description = "client authentication failed",
): PlatformError {
  return new PlatformError(ErrorCode.Unauthenticated, description, {
    oauthError: "invalid_client",
    ...(usedHeader ? { challenge: 'Basic realm="oauth2"' } : {}),
  });
}
