import type { Queryable } from "../database.ts";

export interface FileRecord {
  id: string;
  name: string;
  mime: string;
  size: number;
  sha1Hash: string;
  storageKey: string;
  meta: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** Where the bytes of a file id live in file storage. */
export function storageKeyOf(fileId: string): string {
  return `files/${fileId.slice(0, 2)}/${fileId}`;
}

export async function recordFile(
  sql: Queryable,
  file: {
    id: string;
    name: string;
    mime: string;
    size: number;
    sha1Hash: string;
    applicationId: string;
    tenantId?: string;
  },
): Promise<void> {
  await sql`
    insert into files (id, name, mime, size, sha1_hash, storage_key, application_id, tenant_id)
    values (${file.id}, ${file.name}, ${file.mime}, ${file.size}, ${file.sha1Hash}, ${storageKeyOf(file.id)},
            ${file.applicationId}, ${file.tenantId ?? null})`;
}

export async function fileById(sql: Queryable, id: string): Promise<FileRecord | undefined> {
  const [row] = await sql<FileRecord[]>`
    select id, name, mime, size::float8 as size, sha1_hash as "sha1Hash", storage_key as "storageKey", meta,
           created_at as "createdAt", updated_at as "updatedAt"
    from files where id = ${id}`;
  return row;
}

export async function forgetFile(sql: Queryable, id: string): Promise<void> {
  await sql`delete from files where id = ${id}`;
}
