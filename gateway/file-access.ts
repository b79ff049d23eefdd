import { createHash } from "node:crypto";
import type { Context } from "hono";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import type { FileRecord } from "../files/file-record.ts";
import { recordDownload, spendFileToken } from "../files/file-store.ts";
import { FileTokenGuard } from "../files/file-token-guard.ts";
import type { AccessClaims, AccessTokens } from "../identity/access-tokens.ts";
import { refusedToken } from "../identity/token-refusals.ts";
import type { Config } from "../runtime/config.ts";
import type { Queryable } from "../runtime/database.ts";
import { clientAddress } from "./client-address.ts";
import type { GatewayDeps, GatewayEnv } from "./gateway-env.ts";

/**
 * The persistent address of a stored file (spec 001's file service `GET /file/{id}`), on
 * FILE_PUBLIC_URL: an origin apart from the gateway's keeps what users upload away from its pages.
 */
export function fileUrl(config: Config, fileId: string): string {
  return `${config.files.publicUrl}/file/${fileId}`;
}

const FILE_TOKEN_REFUSED = "the access_token is not valid for this file (expired, used, or wrong)";

export function hashFileToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Only the application that uploaded a file changes it, whatever the grant of its token. */
export function requireOwner(file: FileRecord, token: AccessClaims): void {
  if (file.applicationId !== token.clientId) {
    throw new PlatformError(ErrorCode.PermissionDenied, `file ${file.id} belongs to another application`);
  }
}

/**
 * The check of each download (file, meta or thumbnail) of a request: `spend` uses up a disposable
 * file token.
 */
export function downloadAccess(deps: GatewayDeps) {
  const { config } = deps;
  const guard = new FileTokenGuard(
    deps.db.sql,
    config.files.tokenMaxFailures,
    config.files.tokenLockoutSeconds,
  );
  return (c: Context<GatewayEnv>, file: FileRecord, options: { spend: boolean }) =>
    allowDownload(deps.db.sql, deps.oauth.accessTokens, file, c.req.query("access_token"), {
      ...options,
      guard,
      address: clientAddress(c, config.http.trustProxyHops),
    });
}

/**
 * Spec 001's secure files: a download needs `access_token`, one of three kinds. An application
 * token or a user token must come from the application that owns the file (a user download is
 * recorded for audit); otherwise the value is tried as the file's own token (`meta.token`), within
 * `tokenExpire`, and once only when `tokenDisposable`, under the guard against guessing it.
 */
async function allowDownload(
  sql: Queryable,
  accessTokens: AccessTokens,
  file: FileRecord,
  accessToken: string | undefined,
  options: { spend: boolean; guard: FileTokenGuard; address: string },
): Promise<void> {
  if (file.meta.secure !== true) return;
  if (!accessToken) {
    throw new PlatformError(
      ErrorCode.Unauthenticated,
      "this file is secure: its download needs an access_token",
      {
        challenge: "Bearer",
      },
    );
  }
  const claims = await accessTokens.verify(accessToken);
  if (typeof claims === "object") {
    requireOwner(file, claims);
    if (claims.kind === "user") {
      await recordDownload(sql, { fileId: file.id, userId: claims.userId, applicationId: claims.clientId });
    }
    return;
  }
  const hash = hashFileToken(accessToken);
  const valid = await options.guard.attempt(file.id, options.address, (tx) =>
    options.spend
      ? spendFileToken(tx, file.id, hash)
      : Promise.resolve(file.tokenHash === hash && !tokenExpired(file)),
  );
  if (!valid) {
    // An access token of ours that is refused says why; any other value was taken for a file token.
    if (claims !== "malformed") throw refusedToken(claims);
    throw new PlatformError(ErrorCode.Unauthenticated, FILE_TOKEN_REFUSED, {
      challenge: `Bearer error="invalid_token", error_description="${FILE_TOKEN_REFUSED}"`,
    });
  }
}

function tokenExpired(file: FileRecord): boolean {
  const expire = file.meta.tokenExpire;
  return typeof expire === "number" && expire * 1000 <= Date.now();
}
