import { ErrorCode, localizedError } from "../contracts/errors.ts";
import type { Queryable } from "../runtime/database.ts";

/** Spec 001's triple types: the users, departments and posts a tenant's positions are made of. */
export type TripleType = "user" | "dept" | "post";

/** The source of an entry written through the API when the caller names none (spec 001 5.2). */
export const MANUAL_SOURCE = "PUSH";
/** The source of entries the tenant's enterprise feed wrote; only these follow the feed. */
export const FEED_SOURCE = "FEED";

export interface UserEntry {
  id: string;
  code: string;
  account: string;
  name: string;
  email: string | null;
  phone: string | null;
  title: string | null;
  express: boolean;
  description: string | null;
  source: string;
}

export interface DeptEntry {
  id: string;
  code: string;
  name: string;
  description: string | null;
  parent: string | null;
  independent: boolean;
  tags: string | null;
  meta: Record<string, string> | null;
  source: string;
}

export interface PostEntry {
  id: string;
  code: string;
  name: string;
  description: string | null;
  formal: boolean;
  tags: string | null;
  meta: Record<string, string> | null;
  bizTypes: string[];
  source: string;
}

export type TripleEntry = UserEntry | DeptEntry | PostEntry;

/** What 5.2 creates an entry from; fields that do not apply to the type are ignored. */
export interface TripleFields {
  code: string;
  name: string;
  description?: string | undefined;
  source?: string | undefined;
  tags?: string | undefined;
  meta?: Record<string, string> | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  title?: string | undefined;
  express?: boolean | undefined;
  parent?: string | undefined;
  independent?: boolean | undefined;
  formal?: boolean | undefined;
}

/** What 5.3 may change: `description`, `tags` and `meta` of departments and posts, and users' contact fields. */
export type TripleChanges = Partial<Omit<TripleFields, "code" | "source">> & { source?: string | undefined };

const COLUMNS: Record<TripleType, string> = {
  user: `id, account as code, account, name, email, phone, title, express, description, source`,
  dept: `id, code, name, description, parent_code as parent, independent, tags, meta, source`,
  post: `id, code, name, description, formal, tags, meta, biz_types as "bizTypes", source`,
};
const TABLE: Record<TripleType, string> = { user: "users", dept: "departments", post: "posts" };
const CODE_COLUMN: Record<TripleType, string> = { user: "account", dept: "code", post: "code" };

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function notFound(type: TripleType, code: string) {
  return localizedError(ErrorCode.NotFound, "noEntity", { type: { term: type }, code });
}

/** Matches an entry by its id when `key` is a GUID, else by its code (a user's account). */
export function byIdOrCode(sql: Queryable, type: TripleType, key: string) {
  return GUID.test(key) ? sql`id = ${key}::uuid` : sql`${sql(CODE_COLUMN[type])} = ${key}`;
}

/** 5.1: an enabled entry by its code (a user's account). */
export async function findTriple(
  sql: Queryable,
  tenantId: string,
  type: TripleType,
  code: string,
): Promise<TripleEntry> {
  const [row] = await sql<TripleEntry[]>`
    select ${sql.unsafe(COLUMNS[type])} from ${sql(TABLE[type])}
    where tenant_id = ${tenantId} and not disabled and ${sql(CODE_COLUMN[type])} = ${code}`;
  if (!row) throw notFound(type, code);
  return row;
}

/** 5.5 for departments and posts: the whole enabled set, by code. */
export async function listTriples(
  sql: Queryable,
  tenantId: string,
  type: "dept" | "post",
): Promise<TripleEntry[]> {
  return sql<TripleEntry[]>`
    select ${sql.unsafe(COLUMNS[type])} from ${sql(TABLE[type])}
    where tenant_id = ${tenantId} and not disabled order by code`;
}

/**
 * 5.2: a new entry. An entry removed earlier (5.4) under the same code comes back with the new
 * fields; an enabled one is a conflict.
 */
export async function createTriple(
  sql: Queryable,
  tenantId: string,
  type: TripleType,
  fields: TripleFields,
): Promise<TripleEntry> {
  const source = fields.source ?? MANUAL_SOURCE;
  const description = fields.description ?? null;
  let rows: TripleEntry[];
  if (type === "user") {
    rows = await sql<TripleEntry[]>`
      insert into users (tenant_id, account, name, email, phone, title, express, description, source)
      values (${tenantId}, ${fields.code}, ${fields.name}, ${fields.email ?? null}, ${fields.phone ?? null},
              ${fields.title ?? null}, ${fields.express ?? false}, ${description}, ${source})
      on conflict (tenant_id, account) do update set
        name = excluded.name, email = excluded.email, phone = excluded.phone, title = excluded.title,
        express = excluded.express, description = excluded.description, source = excluded.source,
        disabled = false, updated_at = now()
      where users.disabled
      returning ${sql.unsafe(COLUMNS.user)}`;
  } else if (type === "dept") {
    rows = await sql<TripleEntry[]>`
      insert into departments (tenant_id, code, name, description, parent_code, independent, tags, meta, source)
      values (${tenantId}, ${fields.code}, ${fields.name}, ${description}, ${fields.parent ?? null},
              ${fields.independent ?? !fields.parent}, ${fields.tags ?? null},
              ${fields.meta ? sql.json(fields.meta) : null}, ${source})
      on conflict (tenant_id, code) do update set
        name = excluded.name, description = excluded.description, parent_code = excluded.parent_code,
        independent = excluded.independent, tags = excluded.tags, meta = excluded.meta,
        source = excluded.source, disabled = false, updated_at = now()
      where departments.disabled
      returning ${sql.unsafe(COLUMNS.dept)}`;
  } else {
    rows = await sql<TripleEntry[]>`
      insert into posts (tenant_id, code, name, description, formal, tags, meta, source)
      values (${tenantId}, ${fields.code}, ${fields.name}, ${description}, ${fields.formal ?? false},
              ${fields.tags ?? null}, ${fields.meta ? sql.json(fields.meta) : null}, ${source})
      on conflict (tenant_id, code) do update set
        name = excluded.name, description = excluded.description, formal = excluded.formal,
        tags = excluded.tags, meta = excluded.meta, source = excluded.source, disabled = false,
        updated_at = now()
      where posts.disabled
      returning ${sql.unsafe(COLUMNS.post)}`;
  }
  const [row] = rows;
  if (!row)
    throw localizedError(ErrorCode.Conflict, "entityExists", { type: { term: type }, code: fields.code });
  return row;
}

const MODIFIABLE: Record<TripleType, readonly (keyof TripleChanges)[]> = {
  user: ["name", "email", "phone", "title", "express", "description"],
  dept: ["description", "tags", "meta"],
  post: ["description", "tags", "meta"],
};

/** The changeable fields of a type, for a clear refusal of the others. */
export function modifiableFields(type: TripleType): readonly string[] {
  return MODIFIABLE[type];
}

/**
 * 5.3: changes the given fields. The entry takes the caller's source (default `PUSH`), so an
 * entry the feed wrote and someone edited is the editor's from then on.
 */
export async function modifyTriple(
  sql: Queryable,
  tenantId: string,
  type: TripleType,
  code: string,
  changes: TripleChanges,
): Promise<TripleEntry> {
  const values: Record<string, unknown> = { source: changes.source ?? MANUAL_SOURCE, updated_at: new Date() };
  for (const field of MODIFIABLE[type]) {
    const value = changes[field];
    if (value === undefined) continue;
    values[field] = field === "meta" ? sql.json(value as Record<string, string>) : value;
  }
  const [row] = await sql<TripleEntry[]>`
    update ${sql(TABLE[type])} set ${sql(values)}
    where tenant_id = ${tenantId} and ${sql(CODE_COLUMN[type])} = ${code} and not disabled
    returning ${sql.unsafe(COLUMNS[type])}`;
  if (!row) throw notFound(type, code);
  return row;
}

/**
 * 5.4: removes an entry, by id or code. It is disabled rather than deleted, so what refers to it
 * (tokens, notifications, history) stays whole; its occupancies stop counting with it.
 */
export async function removeTriple(
  sql: Queryable,
  tenantId: string,
  type: TripleType,
  key: string,
  source: string | undefined,
): Promise<TripleEntry> {
  const [row] = await sql<TripleEntry[]>`
    update ${sql(TABLE[type])} set disabled = true, source = ${source ?? MANUAL_SOURCE}, updated_at = now()
    where tenant_id = ${tenantId} and not disabled and ${byIdOrCode(sql, type, key)}
    returning ${sql.unsafe(COLUMNS[type])}`;
  if (!row) throw notFound(type, key);
  return row;
}

/**
 * A department as an operator's file says it: created, or brought up to what the file says (and
 * enabled again); a department without a parent stands on its own.
 */
export async function upsertDepartment(
  sql: Queryable,
  tenantId: string,
  dept: { code: string; name: string; description?: string | undefined; parent?: string | undefined },
): Promise<void> {
  await sql`
    insert into departments (tenant_id, code, name, description, parent_code, independent)
    values (${tenantId}, ${dept.code}, ${dept.name}, ${dept.description ?? null}, ${dept.parent ?? null},
            ${!dept.parent})
    on conflict (tenant_id, code) do update set
      name = excluded.name, description = excluded.description, parent_code = excluded.parent_code,
      independent = excluded.independent, source = ${MANUAL_SOURCE}, disabled = false, updated_at = now()`;
}

/** A post as an operator's file says it: created, or brought up to what the file says (and enabled again). */
export async function upsertPost(
  sql: Queryable,
  tenantId: string,
  post: { code: string; name: string; description?: string | undefined; formal: boolean },
): Promise<void> {
  await sql`
    insert into posts (tenant_id, code, name, description, formal)
    values (${tenantId}, ${post.code}, ${post.name}, ${post.description ?? null}, ${post.formal})
    on conflict (tenant_id, code) do update set
      name = excluded.name, description = excluded.description, formal = excluded.formal,
      source = ${MANUAL_SOURCE}, disabled = false, updated_at = now()`;
}

/** A department or post as the bootstrap export reads it. */
export interface DirectoryEntryRecord {
  code: string;
  name: string;
  description: string | null;
  parent: string | null;
  formal: boolean | null;
}

/**
 * A page of the tenant's enabled departments or posts not managed by its enterprise feed, by code
 * after `after`: what an operator's file may hold.
 */
export async function directoryEntryPage(
  sql: Queryable,
  tenantId: string,
  type: "dept" | "post",
  after: string | null,
  limit: number,
): Promise<DirectoryEntryRecord[]> {
  const [parent, formal] = type === "dept" ? ["parent_code", "null::boolean"] : ["null::text", "formal"];
  return sql<DirectoryEntryRecord[]>`
    select code, name, description, ${sql.unsafe(parent)} as parent, ${sql.unsafe(formal)} as formal
    from ${sql(TABLE[type])}
    where tenant_id = ${tenantId} and not disabled and source <> ${FEED_SOURCE}
      ${after === null ? sql`` : sql`and code > ${after}`}
    order by code limit ${limit}`;
}
