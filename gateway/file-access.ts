import { createHash } from "node:crypto";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import type { Queryable } from "../runtime/database.ts";
import { type FileRecord, recordDownload, spendFileToken } from "../runtime/directory/files.ts";
import type { AccessClaims, AccessTokens } from "./oauth/access-tokens.ts";

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
 * Spec 001's secure files: a download needs `access_token`, one of three kinds. An application
 * token or a user token must come from the application that owns the file (a user download is
 * recorded for audit); otherwise the value is tried as the file's own token (`meta.token`), within
 * `tokenExpire`, and once only when `tokenDisposable`.
 */
export async function allowDownload(
  sql: Queryable,
  accessTokens: AccessTokens,
  file: FileRecord,
  accessToken: string | undefined,
  options: { spend: boolean },
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
  if (claims) {
    requireOwner(file, claims);
    if (claims.kind === "user") {
      await recordDownload(sql, { fileId: file.id, userId: claims.userId, applicationId: claims.clientId });
    }
    return;
  }
  const hash = hashFileToken(accessToken);
  const valid = options.spend
    ? await spendFileToken(sql, file.id, hash)
    : file.tokenHash === hash && !tokenExpired(file);
  if (!valid) {
    throw new PlatformError(
      ErrorCode.Unauthenticated,
      "the access_token is not valid for this file (expired, used, or wrong)",
      {
        challenge: 'Bearer error="invalid_token"',
      },
    );
  }
}

function tokenExpired(file: FileRecord): boolean {
  const expire = file.meta.tokenExpire;
  return typeof expire === "number" && expire * 1000 <= Date.now();
}
