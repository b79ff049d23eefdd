import type { BootstrapApplication } from "../../contracts/bootstrap.ts";
import { scopeNamed } from "../../contracts/scopes.ts";
import { ConfigError } from "../config.ts";
import type { Queryable } from "../database.ts";
import { hashSecret } from "../secrets.ts";
import { tenantByDomain } from "./tenants.ts";

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
  await sql`
    insert into applications (id, secret_hash, name, type, tenant_id, workflow_code, redirect_uris, scopes, implicit_allowed)
    values (${app.id}, ${secretHash}, ${app.name}, ${app.type}, ${tenantId}, ${app.workflowCode ?? null},
            ${app.redirectUris}, ${app.scopes}, ${app.implicitAllowed})
    on conflict (id) do update set
      secret_hash = coalesce(excluded.secret_hash, applications.secret_hash), name = excluded.name, type = excluded.type,
      tenant_id = excluded.tenant_id, workflow_code = excluded.workflow_code,
      redirect_uris = excluded.redirect_uris, scopes = excluded.scopes,
      implicit_allowed = excluded.implicit_allowed, updated_at = now()
    where (applications.secret_hash, applications.name, applications.type, applications.tenant_id,
           applications.workflow_code, applications.redirect_uris, applications.scopes, applications.implicit_allowed)
      is distinct from (coalesce(excluded.secret_hash, applications.secret_hash), excluded.name, excluded.type, excluded.tenant_id,
           excluded.workflow_code, excluded.redirect_uris, excluded.scopes, excluded.implicit_allowed)`;
}

export async function applicationById(sql: Queryable, id: string): Promise<Application | undefined> {
  const [row] = await sql<Application[]>`
    select id, secret_hash as "secretHash", name, type, tenant_id as "tenantId", workflow_code as "workflowCode",
           redirect_uris as "redirectUris", scopes, implicit_allowed as "implicitAllowed", disabled
    from applications where id = ${id}`;
  return row;
}
