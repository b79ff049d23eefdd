import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { fileMetaSchema } from "../contracts/files.ts";
import { firstIssueMessage } from "../contracts/validation-issue.ts";
import { findFile, hashFileToken, requireOwner } from "./download-access.ts";
import { type FormReader, type IntakeDeps, receiveContent, requestThumbnails } from "./file-intake.ts";
import type { FileRecord } from "./file-record.ts";
import { deleteFile, fileById, replaceContent, updateMeta } from "./file-store.ts";

/** The caller changing a file: only the application that uploaded it may. */
export interface FileCaller {
  clientId: string;
}

/** New content for the caller's file, its id kept; thumbnails of the new content are asked for. */
export async function replaceFile(
  deps: IntakeDeps,
  id: string,
  caller: FileCaller,
  read: FormReader,
): Promise<FileRecord> {
  const file = await findFile(deps.sql, id);
  requireOwner(file, caller);
  const content = await receiveContent(deps.storage, file.id, read);
  const replaced = await replaceContent(deps.sql, file.id, content);
  if (!replaced) throw new PlatformError(ErrorCode.NotFound, `no file ${file.id}`);
  await requestThumbnails(deps.jobs, replaced);
  return replaced;
}

/**
 * Deletes the caller's file; the answer is the file that was. Its content stays while other files
 * share it: the blob sweep removes it once unused.
 */
export async function deleteOwnFile(
  deps: Pick<IntakeDeps, "sql">,
  id: string,
  caller: FileCaller,
): Promise<FileRecord> {
  const file = await findFile(deps.sql, id);
  requireOwner(file, caller);
  await deleteFile(deps.sql, file.id);
  return file;
}

/**
 * Sets the meta of the caller's file from spec 001's `meta` (checked here): keys given replace
 * those stored and a key given as null is removed; a file token is kept hashed; new thumbnail
 * sizes are asked for.
 */
export async function updateFileMeta(
  deps: Pick<IntakeDeps, "sql" | "jobs">,
  id: string,
  caller: FileCaller,
  given: unknown,
): Promise<FileRecord> {
  const file = await findFile(deps.sql, id);
  requireOwner(file, caller);
  const parsed = fileMetaSchema.safeParse(given);
  if (!parsed.success) {
    throw new PlatformError(
      ErrorCode.InvalidArgument,
      firstIssueMessage(parsed.error.issues, { under: "meta" }),
    );
  }
  const { token, thumbsizes, ...keys } = parsed.data;
  const meta: Record<string, unknown> = { ...file.meta };
  for (const [key, value] of Object.entries(keys)) {
    if (value === null) delete meta[key];
    else meta[key] = value;
  }
  await updateMeta(deps.sql, file.id, {
    meta,
    ...(token === undefined ? {} : { tokenHash: token === null ? null : hashFileToken(token) }),
    ...(thumbsizes ? { thumbsizes } : {}),
  });
  const current = (await fileById(deps.sql, file.id))!;
  if (thumbsizes) await requestThumbnails(deps.jobs, current);
  return current;
}
