import type { BootstrapApplication } from "../contracts/bootstrap.ts";
import { scopeNamed } from "../contracts/scopes.ts";
import { ConfigError } from "../runtime/config.ts";
import type { Queryable } from "../runtime/database.ts";
import { hashSecret } from "../runtime/secrets.ts";
import { tenantByDomain } from "./tenant-store.ts";

export interface Application {
  id: string;
  secretHash: Buffer | null;
  name: string;
  type: "global" | "enterprise" | "workflow";
  tenantId: string | null;
  workflowCode: string | null;
  redirectUris: string[];
  scopes: string[];
  implicitAllowed: boolean;
  disabled: boolean;
  /** The grant types it may use; null: every grant its approved scopes allow. */
  grants: string[] | null;
  /** Its access tokens' lifetime; null: ACCESS_TOKEN_TTL_SECONDS. */
  accessTokenTtlSeconds: number | null;
}

/** Creates the application or brings it up to date; a given secret replaces the stored one, an omitted one keeps it. */
export async function upsertApplication(sql: Queryable, app: BootstrapApplication): Promise<void> {
  const unknown = app.scopes.filter((scope) => !scopeNamed(scope));
  if (unknown.length > 0) throw new ConfigError(`application ${app.id}: unknown scope ${unknown.join(", ")}`);
  let tenantId: string | null = null;
  if (app.tenant) {
    const tenant = await tenantByDomain(sql, app.tenant);
    if (!tenant) throw new ConfigError(`application ${app.id}: no tenant with domain ${app.tenant}`);
    tenantId = tenant.id;
  }
  const secretHash = app.secret === undefined ? null : hashSecret(app.secret);
  const grants = app.grants ?? null;
  const ttl = app.accessTokenTtlSeconds ?? null;
  // An entry without `disabled` leaves an operator's disabling alone.
  const disabled = app.disabled ?? null;
  await sql`
    insert into applications (id, secret_hash, name, type, tenant_id, workflow_code, redirect_uris, scopes,
                              implicit_allowed, grants, access_token_ttl_seconds, disabled)
    values (${app.id}, ${secretHash}, ${app.name}, ${app.type}, ${tenantId}, ${app.workflowCode ?? null},
            ${app.redirectUris}, ${app.scopes}, ${app.implicitAllowed}, ${grants}, ${ttl},
            coalesce(${disabled}::boolean, false))
    on conflict (id) do update set
      secret_hash = coalesce(excluded.secret_hash, applications.secret_hash), name = excluded.name, type = excluded.type,
      tenant_id = excluded.tenant_id, workflow_code = excluded.workflow_code,
      redirect_uris = excluded.redirect_uris, scopes = excluded.scopes,
      implicit_allowed = excluded.implicit_allowed, grants = excluded.grants,
      access_token_ttl_seconds = excluded.access_token_ttl_seconds,
      disabled = coalesce(${disabled}::boolean, applications.disabled), updated_at = now()
    where (applications.secret_hash, applications.name, applications.type, applications.tenant_id,
           applications.workflow_code, applications.redirect_uris, applications.scopes, applications.implicit_allowed,
           applications.grants, applications.access_token_ttl_seconds, applications.disabled)
      is distinct from (coalesce(excluded.secret_hash, applications.secret_hash), excluded.name, excluded.type, excluded.tenant_id,
           excluded.workflow_code, excluded.redirect_uris, excluded.scopes, excluded.implicit_allowed,
           excluded.grants, excluded.access_token_ttl_seconds, coalesce(${disabled}::boolean, applications.disabled))`;
}

export async function applicationById(sql: Queryable, id: string): Promise<Application | undefined> {
  const [row] = await sql<Application[]>`
    select id, secret_hash as "secretHash", name, type, tenant_id as "tenantId", workflow_code as "workflowCode",
           redirect_uris as "redirectUris", scopes, implicit_allowed as "implicitAllowed", disabled,
           grants, access_token_ttl_seconds as "accessTokenTtlSeconds"
    from applications where id = ${id}`;
  return row;
}

/** Disables or enables an application; false when there is none with that id. */
export async function setApplicationDisabled(
  sql: Queryable,
  id: string,
  disabled: boolean,
): Promise<boolean> {
  const rows = await sql`
    update applications set disabled = ${disabled}, updated_at = now() where id = ${id} returning id`;
  return rows.length > 0;
}

/** The ids of the disabled applications, whose tokens gateways refuse. */
export async function disabledApplicationIds(sql: Queryable): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`select id from applications where disabled`;
  return rows.map((row) => row.id);
}

/** The longest access-token lifetime any application has, or `fallback` when none is longer. */
export async function longestAccessTokenTtl(sql: Queryable, fallback: number): Promise<number> {
  const [row] = await sql<{ longest: number }[]>`
    select greatest(coalesce(max(access_token_ttl_seconds), 0), ${fallback}::int) as longest from applications`;
  return row!.longest;
}

/** An application as operators read it: never its secret's hash, only whether it has one. */
export interface ApplicationRecord {
  id: string;
  name: string;
  type: Application["type"];
  /** The domain of its tenant; null for a global application. */
  tenant: string | null;
  workflowCode: string | null;
  redirectUris: string[];
  scopes: string[];
  implicitAllowed: boolean;
  grants: string[] | null;
  accessTokenTtlSeconds: number | null;
  disabled: boolean;
  hasSecret: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** At most `limit` applications by id (those of one tenant when `tenantId` is given), after the id `after`. */
export async function applicationPage(
  sql: Queryable,
  filter: { tenantId?: string | undefined; after: string | null; limit: number },
): Promise<ApplicationRecord[]> {
  const { tenantId, after, limit } = filter;
  return sql<ApplicationRecord[]>`
    select a.id, a.name, a.type, t.domain as tenant, a.workflow_code as "workflowCode",
           a.redirect_uris as "redirectUris", a.scopes, a.implicit_allowed as "implicitAllowed", a.grants,
           a.access_token_ttl_seconds as "accessTokenTtlSeconds", a.disabled,
           a.secret_hash is not null as "hasSecret", a.created_at as "createdAt", a.updated_at as "updatedAt"
    from applications a left join tenants t on t.id = a.tenant_id
    where true
      ${tenantId === undefined ? sql`` : sql`and a.tenant_id = ${tenantId}`}
      ${after === null ? sql`` : sql`and a.id > ${after}`}
    order by a.id limit ${limit}`;
}

/**
 * Sets the scopes the operators approved for an application and the grants it may use (null:
 * every grant its scopes allow); false when there is none with that id.
 */
export async function setApplicationAccess(
  sql: Queryable,
  id: string,
  access: { scopes: string[]; grants: string[] | null },
): Promise<boolean> {
  const rows = await sql`
    update applications set scopes = ${access.scopes}, grants = ${access.grants}, updated_at = now()
    where id = ${id} returning id`;
  return rows.length > 0;
}
