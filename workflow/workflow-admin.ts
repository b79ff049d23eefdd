import type { BootstrapWorkflow, DeployedVersionFields } from "../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { type Tenant, tenantByDomain } from "../identity/tenants.ts";
import { type Database, type Queryable, transaction } from "../runtime/database.ts";
import {
  setVersionOnline,
  type VersionSummary,
  versionSummaries,
  type WorkflowApp,
  workflowAppByIdOrCode,
  workflowAppPage,
} from "./app-store.ts";
import { exportBpmn } from "./bpmn/bpmn-export.ts";
import { versionProcessCounts } from "./process-oversight-store.ts";
import { versionWithDiagram } from "./version-diagram-store.ts";
import { type DeployedVersion, deployWorkflow } from "./workflow-deployment.ts";

export type { VersionSummary, WorkflowApp } from "./app-store.ts";

/** The newest versions shown of each app; `versionCount` tells how many it has in all. */
export const VERSIONS_SHOWN = 50;

/** The tenant of the domain; refused as not found when there is none. */
export async function tenantNamed(sql: Queryable, domain: string): Promise<Tenant> {
  const tenant = await tenantByDomain(sql, domain);
  if (!tenant) throw new PlatformError(ErrorCode.NotFound, `no tenant ${domain}`);
  return tenant;
}

/**
 * Deploys a version of a tenant's workflow app, made when new (named by `fields`, or by its code),
 * and tells every process the tenant's apps changed.
 */
export async function deployTenantWorkflow(
  db: Database,
  domain: string,
  code: string,
  fields: Partial<Omit<BootstrapWorkflow, "tenant" | "code" | "versions">> | undefined,
  version: DeployedVersionFields,
): Promise<{ app: WorkflowApp; version: DeployedVersion }> {
  const tenant = await tenantNamed(db.sql, domain);
  const deployed = await transaction(db.sql, async (tx) => {
    const existing = await workflowAppByIdOrCode(tx, tenant.id, code);
    const name = fields?.name ?? existing?.name ?? code;
    return deployWorkflow(tx, tenant.id, { ...fields, code, name, versions: [version] });
  });
  await db.changes.announce({ kind: "workflow-app", tenantId: tenant.id });
  return { app: deployed.app, version: deployed.versions[0]! };
}

/**
 * A page of a tenant's workflow apps by code, with the first of the next page when there is one,
 * and the newest versions of the page's apps.
 */
export async function tenantWorkflowApps(
  sql: Queryable,
  domain: string,
  after: string | null,
  limit: number,
) {
  const tenant = await tenantNamed(sql, domain);
  const apps = await workflowAppPage(sql, tenant.id, after, limit + 1);
  const versions = await versionSummaries(
    sql,
    apps.slice(0, limit).map((row) => row.id),
    VERSIONS_SHOWN,
  );
  const versionsOf = new Map<string, VersionSummary[]>();
  for (const version of versions) {
    const own = versionsOf.get(version.appId);
    if (own) own.push(version);
    else versionsOf.set(version.appId, [version]);
  }
  return { apps, versionsOf };
}

/** A version of a tenant's app as a BPMN 2.0 document, drawn as it was deployed or laid out anew. */
export async function tenantWorkflowVersionBpmn(
  sql: Queryable,
  domain: string,
  code: string,
  versionId: string,
): Promise<string> {
  const tenant = await tenantNamed(sql, domain);
  const app = await workflowAppByIdOrCode(sql, tenant.id, code);
  const version = app && (await versionWithDiagram(sql, app.id, versionId));
  if (!app || !version) throw new PlatformError(ErrorCode.NotFound, `no version ${versionId} of ${code}`);
  return exportBpmn(version.definition, version.diagram, app.code);
}

/**
 * Takes a version of a tenant's app on or off line for formal or test data, and tells every
 * process the tenant's apps changed.
 */
export async function setTenantVersionOnline(
  db: Database,
  domain: string,
  code: string,
  change: { versionId: string; test: boolean; online: boolean },
): Promise<void> {
  const tenant = await tenantNamed(db.sql, domain);
  const app = await workflowAppByIdOrCode(db.sql, tenant.id, code);
  const changed =
    app && (await setVersionOnline(db.sql, app.id, change.versionId, change.test, change.online));
  if (!changed) throw new PlatformError(ErrorCode.NotFound, `no version ${change.versionId} of ${code}`);
  await db.changes.announce({ kind: "workflow-app", tenantId: tenant.id });
}

/** Processes a version is counted up to: past it, a list says "or more". */
export const PROCESS_COUNT_CAP = 1000;

/** How many processes each of the versions has, up to `PROCESS_COUNT_CAP`. */
export function processCountsOf(sql: Queryable, versionIds: readonly string[]): Promise<Map<string, number>> {
  return versionProcessCounts(sql, versionIds, PROCESS_COUNT_CAP);
}
