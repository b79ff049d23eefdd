import type { BootstrapTenant } from "../../contracts/bootstrap.ts";
import type { Queryable } from "../database.ts";

export interface Tenant {
  id: string;
  domain: string;
  name: string;
}

/** Creates the tenant or brings it up to date, by its domain; untouched rows keep their timestamps. */
export async function upsertTenant(sql: Queryable, tenant: BootstrapTenant): Promise<Tenant> {
  const [row] = await sql<Tenant[]>`
    insert into tenants (domain, name, style, logo, banner, copyright)
    values (${tenant.domain}, ${tenant.name}, ${tenant.style ?? null}, ${tenant.logo ?? null},
            ${tenant.banner ?? null}, ${tenant.copyright ?? null})
    on conflict (domain) do update set
      name = excluded.name, style = excluded.style, logo = excluded.logo,
      banner = excluded.banner, copyright = excluded.copyright, updated_at = now()
    where (tenants.name, tenants.style, tenants.logo, tenants.banner, tenants.copyright)
      is distinct from (excluded.name, excluded.style, excluded.logo, excluded.banner, excluded.copyright)
    returning id, domain, name`;
  return row ?? (await tenantByDomain(sql, tenant.domain))!;
}

export async function tenantByDomain(sql: Queryable, domain: string): Promise<Tenant | undefined> {
  const [row] = await sql<Tenant[]>`select id, domain, name from tenants where domain = ${domain}`;
  return row;
}
