import { WORKFLOW_LIST_MAX, WORKFLOW_VERSIONS_MAX } from "../contracts/bootstrap.ts";
import { type ExportTenant, type SectionExport, withoutUnset } from "../runtime/bootstrap-export.ts";
import type { Queryable } from "../runtime/database.ts";
import { APP_LISTS, type AppList, listedGranteesOf } from "./app-access.ts";
import { exportedVersions, type WorkflowApp, workflowAppPage } from "./app-store.ts";

const PAGE = 200;

/**
 * The operator's list of an app, or undefined to leave it out: when it is empty, or when an account
 * in it is disabled (the bootstrap refuses a disabled account, and a list left out keeps the rows
 * it has). Administrators and guests are accounts; starters accounts and positions.
 */
async function listOf(sql: Queryable, tenantId: string, app: WorkflowApp, name: AppList) {
  const on = { tenantId, scope: "workflow" as const, object: app.id };
  const list = await listedGranteesOf(sql, on, APP_LISTS[name], WORKFLOW_LIST_MAX);
  if (list.disabled || list.more || list.accounts.length + list.positions.length === 0) return undefined;
  return name === "starters" ? { accounts: list.accounts, positions: list.positions } : list.accounts;
}

async function workflowEntry(sql: Queryable, tenant: ExportTenant, app: WorkflowApp) {
  const { code, name, abbreviation, description, tags, icon, palette, department, contact } = app;
  const { recommendation, visible, ready } = app;
  const versions = await exportedVersions(sql, app.id, WORKFLOW_VERSIONS_MAX);
  return withoutUnset({
    tenant: tenant.domain,
    code,
    name,
    abbreviation,
    description,
    tags: tags || undefined,
    icon,
    palette,
    department,
    contact,
    recommendation,
    visible,
    ready,
    administrators: await listOf(sql, tenant.id, app, "administrators"),
    guests: await listOf(sql, tenant.id, app, "guests"),
    starters: await listOf(sql, tenant.id, app, "starters"),
    versions: versions.map((version) =>
      withoutUnset({
        name: version.name,
        online: version.onlineFormal,
        beta: version.onlineTest,
        definition: version.definition,
      }),
    ),
  });
}

/**
 * A tenant's workflow apps as entries of a bootstrap document's `workflows`, by code: each with the
 * versions online for either data mode and the newest others, oldest first, as many as an entry holds.
 */
async function* workflowExportEntries(
  sql: Queryable,
  tenant: ExportTenant,
): AsyncGenerator<{ key: string; entry: unknown }> {
  let after: string | null = null;
  for (;;) {
    const apps = await workflowAppPage(sql, tenant.id, after, PAGE);
    for (const app of apps) {
      yield { key: `${tenant.domain}/${app.code}`, entry: await workflowEntry(sql, tenant, app) };
    }
    if (apps.length < PAGE) return;
    after = apps.at(-1)!.code;
  }
}

export const workflowSectionExport: SectionExport = {
  section: "workflows",
  async *entries(tx, tenants) {
    for (const tenant of tenants) yield* workflowExportEntries(tx, tenant);
  },
};
