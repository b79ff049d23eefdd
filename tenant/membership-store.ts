import type { BootstrapMembership } from "../contracts/tenant-data.ts";
import type { Queryable } from "../runtime/database.ts";

/** A membership: the tenant's account with an outside provider. */
export interface MembershipRow {
  id: string;
  provider: string;
  code: string;
  name: string | null;
  description: string | null;
  uri: string | null;
  attributes: Record<string, string>;
}

const MEMBERSHIP_COLUMNS = "id, provider, code, name, description, uri, attributes";

export type MembershipFields = Omit<BootstrapMembership, "tenant">;

/** Creates the membership or brings it up to date, by its provider's name whatever its case. */
export async function upsertMembership(
  sql: Queryable,
  tenantId: string,
  membership: MembershipFields,
): Promise<MembershipRow> {
  const [row] = await sql<MembershipRow[]>`
    insert into tenant_memberships (tenant_id, provider, code, name, description, uri, attributes)
    values (${tenantId}, ${membership.provider}, ${membership.code}, ${membership.name ?? null},
            ${membership.description ?? null}, ${membership.uri ?? null}, ${sql.json(membership.attributes)})
    on conflict (tenant_id, lower(provider)) do update set
      provider = excluded.provider, code = excluded.code, name = excluded.name, description = excluded.description,
      uri = excluded.uri, attributes = excluded.attributes, updated_at = now()
    returning ${sql.unsafe(MEMBERSHIP_COLUMNS)}`;
  return row!;
}

/** Removes the membership of the provider (whatever its case); undefined when there is none. */
export async function deleteMembership(
  sql: Queryable,
  tenantId: string,
  provider: string,
): Promise<MembershipRow | undefined> {
  const [row] = await sql<MembershipRow[]>`
    delete from tenant_memberships where tenant_id = ${tenantId} and lower(provider) = lower(${provider})
    returning ${sql.unsafe(MEMBERSHIP_COLUMNS)}`;
  return row;
}

export async function membershipCount(sql: Queryable, tenantId: string): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from tenant_memberships where tenant_id = ${tenantId}`;
  return row!.count;
}

/** A page of the tenant's memberships by provider, each row with the tenant's count. */
export async function membershipPage(
  sql: Queryable,
  tenantId: string,
  start: number,
  limit: number,
): Promise<(MembershipRow & { total: number })[]> {
  return sql<(MembershipRow & { total: number })[]>`
    select ${sql.unsafe(MEMBERSHIP_COLUMNS)}, count(*) over ()::int as total from tenant_memberships
    where tenant_id = ${tenantId} order by lower(provider) offset ${start} limit ${limit}`;
}

/** The membership 9.1 names: by its id, or its provider's name whatever its case. */
export async function membershipByIdOrProvider(
  sql: Queryable,
  tenantId: string,
  key: string,
  isId: boolean,
): Promise<MembershipRow | undefined> {
  const [row] = await sql<MembershipRow[]>`
    select ${sql.unsafe(MEMBERSHIP_COLUMNS)} from tenant_memberships
    where tenant_id = ${tenantId}
      and ${isId ? sql`(id = ${key}::uuid or lower(provider) = lower(${key}))` : sql`lower(provider) = lower(${key})`}
    order by (lower(provider) = lower(${key})) desc limit 1`;
  return row;
}
