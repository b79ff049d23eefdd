import type { Queryable, Sql } from "../runtime/database.ts";
import type { FileStorage } from "../runtime/storage/file-storage.ts";
import type { FileOwner, FileRecord } from "./file-record.ts";
import { createFile, fileById } from "./file-store.ts";

/** Why a stored file's content is not handed to another service. */
export type OpenFileRefusal = "missing" | "secure" | "too-large";

/**
 * The content of a file anyone may download (not secure), read from storage for another service
 * (an export's template or image), when it is at most `maxBytes`; otherwise why not.
 */
export async function readOpenFile(
  deps: { sql: Queryable; storage: FileStorage },
  id: string,
  maxBytes: number,
): Promise<{ content: Buffer } | { refused: OpenFileRefusal }> {
  const file = await fileById(deps.sql, id);
  if (!file) return { refused: "missing" };
  if (file.meta.secure === true) return { refused: "secure" };
  if (file.size > maxBytes) return { refused: "too-large" };
  return { content: await deps.storage.readBytes(file.storageKey) };
}

/** Content another service stored (an export's output), recorded as a new file of `owner`. */
export async function recordStoredContent(
  sql: Sql,
  file: {
    id: string;
    name: string;
    mime: string;
    stored: { key: string; bytes: number; sha1: string; sha256: string };
    owner: FileOwner;
  },
): Promise<FileRecord> {
  const { key, bytes, sha1, sha256 } = file.stored;
  return createFile(sql, {
    id: file.id,
    name: file.name,
    mime: file.mime,
    // Its type is known: no first bytes to sniff.
    upload: { key, size: bytes, sha1, sha256, head: Buffer.alloc(0) },
    storageKey: key,
    owner: file.owner,
  });
}
