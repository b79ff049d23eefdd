import { type Queryable, type Sql, transaction } from "../runtime/database.ts";
import type { StoredUpload } from "../runtime/storage/file-storage.ts";
import type { FileContent, FileRecord, NewFile, ThumbRecord } from "./file-record.ts";

const SELECT_FILE = `
  select f.id, f.name, f.mime, f.size::float8 as size, f.sha1_hash as "sha1Hash", f.sha256,
         b.storage_key as "storageKey", f.tags, f.thumbsizes, f.meta, f.token_hash as "tokenHash",
         f.application_id as "applicationId", f.user_id as "userId", f.tenant_id as "tenantId",
         f.created_at as "createdAt", f.updated_at as "updatedAt"
  from files f join blobs b on b.sha256 = f.sha256`;

/** Registers the content's blob, or marks it used again when identical content is already stored. */
async function useBlob(sql: Queryable, upload: StoredUpload, storageKey: string): Promise<void> {
  await sql`
    insert into blobs (sha256, size, storage_key) values (${upload.sha256}, ${upload.size}, ${storageKey})
    on conflict (sha256) do update set last_used = now()`;
}

export async function createFile(sql: Sql, file: NewFile): Promise<FileRecord> {
  await transaction(sql, async (tx) => {
    await useBlob(tx, file.upload, file.storageKey);
    await tx`
      insert into files (id, name, mime, size, sha1_hash, sha256, thumbsizes, meta, application_id, user_id, tenant_id)
      values (${file.id}, ${file.name}, ${file.mime}, ${file.upload.size}, ${file.upload.sha1}, ${file.upload.sha256},
              ${file.thumbsizes ?? []}, ${tx.json((file.meta ?? {}) as never)}, ${file.owner.applicationId},
              ${file.owner.userId ?? null}, ${file.owner.tenantId ?? null})`;
  });
  return (await fileById(sql, file.id))!;
}

/** New content for a file, its id kept; new thumbnail sizes with it when given. */
export async function replaceContent(
  sql: Sql,
  id: string,
  content: FileContent,
): Promise<FileRecord | undefined> {
  const updated = await transaction(sql, async (tx) => {
    await useBlob(tx, content.upload, content.storageKey);
    return tx`
      update files set name = ${content.name}, mime = ${content.mime}, size = ${content.upload.size},
        sha1_hash = ${content.upload.sha1}, sha256 = ${content.upload.sha256},
        thumbsizes = ${content.thumbsizes ?? tx`thumbsizes`}, updated_at = now()
      where id = ${id} returning id`;
  });
  return updated.length > 0 ? fileById(sql, id) : undefined;
}

export async function fileById(sql: Queryable, id: string): Promise<FileRecord | undefined> {
  const [row] = await sql.unsafe<FileRecord[]>(`${SELECT_FILE} where f.id = $1`, [id]);
  return row;
}

export async function deleteFile(sql: Queryable, id: string): Promise<boolean> {
  const rows = await sql`delete from files where id = ${id} returning id`;
  return rows.length > 0;
}

/** Sets the meta (and the token's hash, when given: null removes it) and the thumbnail sizes. */
export async function updateMeta(
  sql: Queryable,
  id: string,
  change: { meta: Record<string, unknown>; tokenHash?: string | null; thumbsizes?: string[] },
): Promise<void> {
  await sql`
    update files set meta = ${sql.json(change.meta as never)},
      token_hash = ${change.tokenHash === undefined ? sql`token_hash` : change.tokenHash},
      thumbsizes = ${change.thumbsizes === undefined ? sql`thumbsizes` : change.thumbsizes},
      updated_at = now()
    where id = ${id}`;
}

/**
 * Spends a file-service token: true when it is the file's, not expired, and (for a disposable one)
 * not used before. A disposable token is cleared in the same statement that accepts it, so of
 * concurrent downloads exactly one gets through.
 */
export async function spendFileToken(sql: Queryable, id: string, tokenHash: string): Promise<boolean> {
  const rows = await sql`
    with accepted as (
      select id, coalesce((meta->>'tokenDisposable')::boolean, false) as disposable from files
      where id = ${id} and token_hash = ${tokenHash}
        and (meta->>'tokenExpire' is null or (meta->>'tokenExpire')::bigint > extract(epoch from now()))
      for update
    ), spent as (
      update files f set token_hash = null
      from accepted a where f.id = a.id and a.disposable
      returning f.id
    )
    select id from accepted`;
  return rows.length > 0;
}

export async function recordDownload(
  sql: Queryable,
  download: { fileId: string; userId: string | undefined; applicationId: string },
): Promise<void> {
  await sql`
    insert into file_downloads (file_id, user_id, application_id)
    values (${download.fileId}, ${download.userId ?? null}, ${download.applicationId})`;
}

/** A thumbnail made from the file's current content, if there is one of that size. */
export async function thumbOf(
  sql: Queryable,
  fileId: string,
  size: string,
): Promise<ThumbRecord | undefined> {
  const [row] = await sql<ThumbRecord[]>`
    select t.storage_key as "storageKey", t.mime, t.bytes from file_thumbs t join files f on f.id = t.file_id
    where t.file_id = ${fileId} and t.size = ${size} and t.source_sha256 = f.sha256`;
  return row;
}

export async function recordThumb(
  sql: Queryable,
  thumb: {
    fileId: string;
    size: string;
    sourceSha256: string;
    storageKey: string;
    mime: string;
    bytes: number;
  },
): Promise<void> {
  await sql`
    insert into file_thumbs (file_id, size, source_sha256, storage_key, mime, bytes)
    values (${thumb.fileId}, ${thumb.size}, ${thumb.sourceSha256}, ${thumb.storageKey}, ${thumb.mime}, ${thumb.bytes})
    on conflict (file_id, size) do update set source_sha256 = excluded.source_sha256,
      storage_key = excluded.storage_key, mime = excluded.mime, bytes = excluded.bytes`;
}

/**
 * Blobs no file has used for an hour, removed from the table; the caller deletes their storage.
 * The hour covers uploads in flight, which mark their blob used before they record the file.
 */
export async function takeUnusedBlobs(sql: Queryable, limit: number): Promise<string[]> {
  const rows = await sql<{ storageKey: string }[]>`
    delete from blobs b where b.sha256 in (
      select sha256 from blobs where last_used < now() - interval '1 hour'
        and not exists (select from files f where f.sha256 = blobs.sha256)
      limit ${limit} for update skip locked)
    returning b.storage_key as "storageKey"`;
  return rows.map((row) => row.storageKey);
}
