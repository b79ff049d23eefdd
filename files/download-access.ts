import { createHash } from "node:crypto";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { thumbSize } from "../contracts/files.ts";
import type { AccessTokens } from "../identity/access-tokens.ts";
import { refusedToken } from "../identity/token-refusals.ts";
import type { Queryable } from "../runtime/database.ts";
import type { FileRecord, ThumbRecord } from "./file-record.ts";
import { fileById, recordDownload, spendFileToken, thumbOf } from "./file-store.ts";
import type { FileTokenGuard } from "./file-token-guard.ts";

const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const FILE_TOKEN_REFUSED = "the access_token is not valid for this file (expired, used, or wrong)";

/** What the checks of a download need: the files, the platform's access tokens, the guard on file tokens. */
export interface DownloadDeps {
  sql: Queryable;
  accessTokens: Pick<AccessTokens, "verify">;
  guard: FileTokenGuard;
}

/** Who asks for a download: the `access_token` they gave, if any, and the address they come from. */
export interface DownloadRequest {
  accessToken: string | undefined;
  address: string;
}

/** The file of that id; a file id that is not one is simply not found. */
export async function findFile(sql: Queryable, id: string): Promise<FileRecord> {
  const file = FILE_ID.test(id) ? await fileById(sql, id) : undefined;
  if (!file) throw new PlatformError(ErrorCode.NotFound, `no file ${id}`);
  return file;
}

/** Only the application that uploaded a file changes it, whatever the grant of its token. */
export function requireOwner(file: FileRecord, caller: { clientId: string }): void {
  if (file.applicationId !== caller.clientId) {
    throw new PlatformError(ErrorCode.PermissionDenied, `file ${file.id} belongs to another application`);
  }
}

/** A file token is kept as its SHA-256 only. */
export function hashFileToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * The file to hand out (its content, or its record), once the caller may have it: `spend` uses up
 * a disposable file token.
 */
export async function openFile(
  deps: DownloadDeps,
  id: string,
  request: DownloadRequest,
  options: { spend: boolean },
): Promise<FileRecord> {
  const file = await findFile(deps.sql, id);
  await allowDownload(deps, file, request, options);
  return file;
}

/** A thumbnail of the file's current content, of a size its `thumbsizes` asked for. */
export async function openThumbnail(
  deps: DownloadDeps,
  id: string,
  sizeText: string,
  request: DownloadRequest,
): Promise<ThumbRecord> {
  const file = await findFile(deps.sql, id);
  const size = thumbSize(sizeText);
  if (!size) throw new PlatformError(ErrorCode.InvalidArgument, `size: ${sizeText} is not NxM`);
  await allowDownload(deps, file, request, { spend: true });
  const thumb = await thumbOf(deps.sql, file.id, size.name);
  if (!thumb) {
    throw new PlatformError(
      ErrorCode.NotFound,
      `no ${size.name} thumbnail of file ${file.id}: sizes are made from thumbsizes, for images`,
    );
  }
  return thumb;
}

/**
 * Spec 001's secure files: a download needs `access_token`, one of three kinds. An application
 * token or a user token must come from the application that owns the file (a user download is
 * recorded for audit); otherwise the value is tried as the file's own token (`meta.token`), within
 * `tokenExpire`, and once only when `tokenDisposable`, under the guard against guessing it.
 */
async function allowDownload(
  deps: DownloadDeps,
  file: FileRecord,
  { accessToken, address }: DownloadRequest,
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
  const claims = await deps.accessTokens.verify(accessToken);
  if (typeof claims === "object") {
    requireOwner(file, claims);
    if (claims.kind === "user") {
      await recordDownload(deps.sql, {
        fileId: file.id,
        userId: claims.userId,
        applicationId: claims.clientId,
      });
    }
    return;
  }
  const hash = hashFileToken(accessToken);
  const valid = await deps.guard.attempt(file.id, address, (tx) =>
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
