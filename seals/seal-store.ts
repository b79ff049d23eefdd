import { type BootstrapSeal, SEAL_IMAGE_MAX_BYTES } from "../contracts/bootstrap.ts";
import { ConfigError } from "../runtime/config.ts";
import type { Queryable } from "../runtime/database.ts";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const DATA_URI = "data:image/png;base64,";

/** The PNG bytes of a seal's `image` data URI, checked to be a PNG of at most 2 MB. */
export function sealImageBytes(seal: BootstrapSeal): Buffer {
  if (!seal.image.startsWith(DATA_URI)) {
    throw new ConfigError(`seal ${seal.code}: image must be a PNG file or a ${DATA_URI}… URI`);
  }
  const bytes = Buffer.from(seal.image.slice(DATA_URI.length), "base64");
  if (bytes.length > SEAL_IMAGE_MAX_BYTES) {
    throw new ConfigError(`seal ${seal.code}: image is larger than ${SEAL_IMAGE_MAX_BYTES} bytes`);
  }
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE))
    throw new ConfigError(`seal ${seal.code}: image is not a PNG`);
  return bytes;
}

/** Creates the seal or brings it up to date, by tenant and code; a changed seal gets a new version. */
export async function upsertSeal(
  sql: Queryable,
  seal: BootstrapSeal,
  tenantId: string | null,
): Promise<void> {
  const image = sealImageBytes(seal);
  const [updated] = await sql`
    update seals set name = ${seal.name}, image = ${image}, width = ${seal.width}, height = ${seal.height},
      version = version + 1, updated_at = now()
    where code = ${seal.code} and tenant_id is not distinct from ${tenantId}::uuid
      and (name, image, width, height) is distinct from (${seal.name}, ${image}::bytea, ${seal.width}::real, ${seal.height}::real)
    returning id`;
  if (updated) return;
  await sql`
    insert into seals (tenant_id, code, name, image, width, height)
    select ${tenantId}::uuid, ${seal.code}, ${seal.name}, ${image}, ${seal.width}, ${seal.height}
    where not exists (select from seals where code = ${seal.code} and tenant_id is not distinct from ${tenantId}::uuid)`;
}

export interface SealRef {
  id: string;
  code: string;
  /** Goes up with every change of the seal, so workers know when their cached image is stale. */
  version: number;
}

/** The seal an application may use under a code: its tenant's, else the platform's. */
export async function findSeal(
  sql: Queryable,
  code: string,
  tenantId: string | undefined,
): Promise<SealRef | undefined> {
  const [row] = await sql<SealRef[]>`
    select id, code, version from seals
    where code = ${code} and (tenant_id = ${tenantId ?? null}::uuid or tenant_id is null)
    order by tenant_id nulls last limit 1`;
  return row;
}

export async function deleteSeal(sql: Queryable, code: string, tenantId: string | null): Promise<boolean> {
  const rows =
    await sql`delete from seals where code = ${code} and tenant_id is not distinct from ${tenantId}::uuid returning id`;
  return rows.length > 0;
}

export interface SealImageRow {
  version: number;
  width: number;
  height: number;
  /** The PNG bytes. */
  image: Buffer;
}

/** A seal's image and the version it belongs to, by id. */
export async function readSealImage(sql: Queryable, id: string): Promise<SealImageRow | undefined> {
  const [row] = await sql<SealImageRow[]>`
    select version, width, height, image from seals where id = ${id}`;
  return row;
}

/** A seal as operators list it: what it is, not its image. */
export interface SealRecord {
  code: string;
  /** The domain of its tenant; null for a platform-wide seal. */
  tenant: string | null;
  name: string;
  width: number;
  height: number;
  version: number;
  updatedAt: Date;
  /** The image's size in bytes. */
  size: number;
}

/** Where a page of seals continues: after this code and tenant domain ("" for platform-wide seals). */
export interface SealKey {
  code: string;
  tenant: string;
}

/** At most `limit` seals by code, then tenant domain (platform-wide ones first), after `after`. */
export async function sealPage(sql: Queryable, after: SealKey | null, limit: number): Promise<SealRecord[]> {
  return sql<SealRecord[]>`
    select s.code, t.domain as tenant, s.name, s.width, s.height, s.version, s.updated_at as "updatedAt",
           octet_length(s.image) as size
    from seals s left join tenants t on t.id = s.tenant_id
    ${after === null ? sql`` : sql`where (s.code, coalesce(t.domain, '')) > (${after.code}, ${after.tenant})`}
    order by s.code, coalesce(t.domain, '') limit ${limit}`;
}

/** The image of the seal `code` of a tenant, or the platform-wide one when `tenantId` is null. */
export async function sealImageByCode(
  sql: Queryable,
  code: string,
  tenantId: string | null,
): Promise<{ image: Buffer; version: number } | undefined> {
  const [row] = await sql<{ image: Buffer; version: number }[]>`
    select image, version from seals
    where code = ${code} and ${tenantId === null ? sql`tenant_id is null` : sql`tenant_id = ${tenantId}`}`;
  return row;
}
