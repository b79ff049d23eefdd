import type {
  BootstrapTenant,
  WorkflowNotify,
  WorkflowReminder,
  WorkflowStatistics,
} from "../contracts/bootstrap.ts";
import type { Queryable } from "../runtime/database.ts";

export interface Tenant {
  id: string;
  domain: string;
  name: string;
}

/** Creates the tenant or brings it up to date, by its domain; untouched rows keep their timestamps. */
export async function upsertTenant(sql: Queryable, tenant: BootstrapTenant): Promise<Tenant> {
  const settings = tenant.workflow ? { workflow: tenant.workflow } : {};
  const [row] = await sql<Tenant[]>`
    insert into tenants (domain, name, style, logo, banner, copyright, settings)
    values (${tenant.domain}, ${tenant.name}, ${tenant.style ?? null}, ${tenant.logo ?? null},
            ${tenant.banner ?? null}, ${tenant.copyright ?? null}, ${sql.json(settings as never)})
    on conflict (domain) do update set
      name = excluded.name, style = excluded.style, logo = excluded.logo,
      banner = excluded.banner, copyright = excluded.copyright, settings = excluded.settings, updated_at = now()
    where (tenants.name, tenants.style, tenants.logo, tenants.banner, tenants.copyright, tenants.settings)
      is distinct from (excluded.name, excluded.style, excluded.logo, excluded.banner, excluded.copyright, excluded.settings)
    returning id, domain, name`;
  return row ?? (await tenantByDomain(sql, tenant.domain))!;
}

/** The tenant's workflow reminder (spec 001 4.9), or undefined when its settings give none. */
export async function tenantReminder(
  sql: Queryable,
  tenantId: string,
): Promise<WorkflowReminder | undefined> {
  const [row] = await sql<{ reminder: WorkflowReminder | null }[]>`
    select settings->'workflow'->'reminder' as reminder from tenants where id = ${tenantId}`;
  return row?.reminder ?? undefined;
}

/** The `workflow.notify` setting of each of the tenants that has one switched on. */
export async function tenantsNotifying(
  sql: Queryable,
  tenantIds: readonly string[],
): Promise<Map<string, WorkflowNotify>> {
  const rows = await sql<{ id: string; notify: WorkflowNotify }[]>`
    select id, settings->'workflow'->'notify' as notify from tenants
    where id = any(${tenantIds as string[]}::uuid[]) and (settings->'workflow'->'notify'->>'on')::boolean`;
  return new Map(rows.map((row) => [row.id, row.notify]));
}

/** The time zone of each of the tenants that has `workflow.statistics` switched on. */
export async function tenantsCountingStatistics(
  sql: Queryable,
  tenantIds: readonly string[],
): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; timeZone: string | null }[]>`
    select id, settings->'workflow'->'statistics'->>'timeZone' as "timeZone" from tenants
    where id = any(${tenantIds as string[]}::uuid[]) and (settings->'workflow'->'statistics'->>'on')::boolean`;
  return new Map(rows.map((row) => [row.id, row.timeZone ?? "UTC"]));
}

/** The tenant's `workflow.statistics`, as its defaults complete it. */
export async function tenantStatistics(sql: Queryable, tenantId: string): Promise<WorkflowStatistics> {
  const [row] = await sql<{ on: boolean | null; timeZone: string | null }[]>`
    select (settings->'workflow'->'statistics'->>'on')::boolean as on,
           settings->'workflow'->'statistics'->>'timeZone' as "timeZone"
    from tenants where id = ${tenantId}`;
  return { on: row?.on ?? false, timeZone: row?.timeZone ?? "UTC" };
}

export async function tenantByDomain(sql: Queryable, domain: string): Promise<Tenant | undefined> {
  const [row] = await sql<Tenant[]>`select id, domain, name from tenants where domain = ${domain}`;
  return row;
}

/** A tenant as operators read it: every field its bootstrap entry sets, and when it was written. */
export interface TenantRecord extends Tenant {
  style: string | null;
  logo: string | null;
  banner: string | null;
  copyright: string | null;
  settings: {
    workflow?: { reminder?: WorkflowReminder; notify?: WorkflowNotify; statistics?: WorkflowStatistics };
  };
  createdAt: Date;
  updatedAt: Date;
}

/** At most `limit` tenants by domain, those after the domain `after` when given. */
export async function tenantPage(
  sql: Queryable,
  after: string | null,
  limit: number,
): Promise<TenantRecord[]> {
  return sql<TenantRecord[]>`
    select id, domain, name, style, logo, banner, copyright, settings,
           created_at as "createdAt", updated_at as "updatedAt"
    from tenants ${after === null ? sql`` : sql`where domain > ${after}`}
    order by domain limit ${limit}`;
}

/** The tenant's settings document, or undefined when there is no such tenant. */
export async function tenantSettings(
  sql: Queryable,
  tenantId: string,
): Promise<TenantRecord["settings"] | undefined> {
  const [row] = await sql<{ settings: TenantRecord["settings"] }[]>`
    select settings from tenants where id = ${tenantId}`;
  return row?.settings;
}

/** Sets one setting at `path` of the tenant's settings (null removes it); false when there is no such tenant. */
export async function writeTenantSetting(
  sql: Queryable,
  tenantId: string,
  path: readonly [string, string],
  value: unknown,
): Promise<boolean> {
  const [group, name] = path;
  const rows =
    value === null
      ? await sql`
          update tenants set settings = settings #- ${[group, name]}::text[], updated_at = now()
          where id = ${tenantId} returning id`
      : await sql`
          update tenants set settings = jsonb_set(
              settings || jsonb_build_object(${group}::text, coalesce(settings -> ${group}, '{}'::jsonb)),
              ${[group, name]}::text[], ${sql.json(value as never)}),
            updated_at = now()
          where id = ${tenantId} returning id`;
  return rows.length > 0;
}
