import { fileTypeFromBuffer } from "file-type";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { thumbSizesSchema } from "../contracts/files.ts";
import { firstIssueMessage } from "../contracts/validation-issue.ts";
import type { JobClient } from "../runtime/broker/job-client.ts";
import type { Sql } from "../runtime/database.ts";
import type { FileStorage, StoredUpload } from "../runtime/storage/file-storage.ts";
import { timeOrderedId } from "../runtime/time-ordered-id.ts";
import type { FileContent, FileOwner, FileRecord, NewFile } from "./file-record.ts";
import { createFile, deleteFile } from "./file-store.ts";

/** A form as it was read: its text fields, and its file part once stored. */
export interface UploadForm {
  fields: Map<string, string>;
  file: { filename: string; stored: StoredUpload } | undefined;
}

/**
 * Reads the request's form, streaming its file part into storage under `key`. A refusal comes once
 * the part is stored or has failed: what was stored by then is the file service's to remove.
 */
export type FormReader = (key: string) => Promise<UploadForm>;

/** What taking in a file needs: its record, its content's storage, and the thumbnails' queue. */
export interface IntakeDeps {
  sql: Sql;
  storage: FileStorage;
  jobs: Pick<JobClient, "enqueue">;
}

/** The type the content's first bytes show, or spec 001's fallback. */
async function sniffMime(head: Buffer): Promise<string> {
  return (await fileTypeFromBuffer(head))?.mime ?? "application/octet-stream";
}

/**
 * Streams an upload to storage (through `read`), then makes it the blob of its content, with the
 * name, the type its content shows, and the thumbnail sizes the form asks for.
 */
export async function receiveContent(
  storage: FileStorage,
  fileId: string,
  read: FormReader,
): Promise<FileContent> {
  const uploadKey = `uploads/${fileId}-${timeOrderedId()}`;
  // A refused upload is removed here: no file refers to it, so nothing else ever would.
  const discard = async (error: unknown): Promise<never> => {
    await storage.remove(uploadKey);
    throw error;
  };
  const upload = await read(uploadKey).catch(discard);
  if (!upload.file)
    throw new PlatformError(ErrorCode.InvalidArgument, 'file: required (the multipart field "file")');
  const stored = upload.file.stored;
  const thumbsizes = upload.fields.get("thumbsizes");
  const sizes =
    thumbsizes === undefined ? undefined : thumbSizesSchema.safeParse(thumbsizes.split(",").filter(Boolean));
  if (sizes && !sizes.success)
    await discard(
      new PlatformError(
        ErrorCode.InvalidArgument,
        firstIssueMessage(sizes.error.issues, { under: "thumbsizes" }),
      ),
    );
  const storageKey = await storage.promote(uploadKey, stored.sha256);
  return {
    name: upload.file.filename.slice(0, 255),
    mime: await sniffMime(stored.head),
    upload: stored,
    storageKey,
    thumbsizes: sizes?.data,
  };
}

/**
 * Records a new file while `work` runs beside it (work that needs the file waits for `recorded`).
 * When either fails the record is removed again, so that no file stays which its caller was told
 * failed; the work's failure is the one thrown.
 */
export async function keepFile<T>(
  sql: Sql,
  file: NewFile,
  work: (recorded: Promise<FileRecord>) => Promise<T>,
): Promise<{ file: FileRecord; result: T }> {
  const recording = createFile(sql, file);
  const working = (async () => work(recording))();
  const [recorded, worked] = await Promise.allSettled([recording, working]);
  if (recorded.status === "rejected" || worked.status === "rejected") {
    if (recorded.status === "fulfilled") await deleteFile(sql, file.id);
    throw worked.status === "rejected" ? worked.reason : (recorded as PromiseRejectedResult).reason;
  }
  return { file: recorded.value, result: worked.value };
}

/** Asks a `files.thumbs` worker for the thumbnails of an image's content, once per content. */
export async function requestThumbnails(jobs: IntakeDeps["jobs"], file: FileRecord): Promise<void> {
  if (file.thumbsizes.length > 0 && file.mime.startsWith("image/")) {
    await jobs.enqueue("filesThumbs", { fileId: file.id }, { messageId: `${file.id}-${file.sha256}` });
  }
}

/**
 * Spec 001's upload: the content is stored and recorded as a new file of `owner`, and its
 * thumbnails asked for. A caller told the upload failed will upload again: no file is kept then.
 */
export async function uploadFile(
  deps: IntakeDeps,
  read: FormReader,
  upload: { owner: FileOwner; secure: boolean },
): Promise<FileRecord> {
  const id = timeOrderedId();
  const content = await receiveContent(deps.storage, id, read);
  const { file } = await keepFile(
    deps.sql,
    { id, ...content, owner: upload.owner, meta: { secure: upload.secure } },
    async (recorded) => requestThumbnails(deps.jobs, await recorded),
  );
  return file;
}
