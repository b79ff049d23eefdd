import { ErrorCode, localizedError, type PlatformError } from "../contracts/errors.ts";
import { type MessageKey, renderMessage } from "../contracts/messages.ts";

/**
 * Why an access token is refused. Each is told apart (RFC 6750 §3's `error_description`), since the
 * client's remedy differs: an expired token is refreshed, a revoked one needs a new grant, and a
 * disabled application or account needs an operator.
 */
export type TokenRefusal =
  | "malformed"
  | "bad-signature"
  | "expired"
  | "revoked"
  | "application-disabled"
  | "account-disabled";

const REFUSAL_TEXTS: Record<TokenRefusal | "task-link", MessageKey> = {
  malformed: "tokenMalformed",
  "bad-signature": "tokenBadSignature",
  expired: "tokenExpired",
  revoked: "tokenRevoked",
  "application-disabled": "tokenApplicationDisabled",
  "account-disabled": "tokenAccountDisabled",
  "task-link": "taskLinkRefused",
};

/** A request without a token: a bare challenge, as RFC 6750 §3.1 asks when no credentials came. */
export function missingToken(): PlatformError {
  return localizedError(ErrorCode.Unauthenticated, "tokenMissing", {}, { challenge: "Bearer" });
}

/**
 * A refused token (or 3.2's task link): `invalid_token` with the reason in the challenge, in
 * English, and as the error's text, which surfaces of our own give in the caller's language.
 */
export function refusedToken(refusal: TokenRefusal | "task-link"): PlatformError {
  const key = REFUSAL_TEXTS[refusal];
  return localizedError(
    ErrorCode.Unauthenticated,
    key,
    {},
    { challenge: `Bearer error="invalid_token", error_description="${renderMessage(key, {}, "en")}"` },
  );
}
