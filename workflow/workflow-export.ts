import { WORKFLOW_LIST_MAX, WORKFLOW_VERSIONS_MAX } from "../contracts/bootstrap.ts";
import { type ExportTenant, type SectionExport, withoutUnset } from "../runtime/bootstrap-export.ts";
import type { Queryable } from "../runtime/database.ts";
import { type AppAccess, listedAccounts } from "./app-permission-store.ts";
import { exportedVersions, type WorkflowApp, workflowAppPage } from "./app-store.ts";

const PAGE = 200;

/**
 * The accounts the bootstrap listed in a role of the app, or undefined to leave the list out: when
 * there are none, or when one is disabled (the bootstrap refuses a disabled account, and a list left
 * out keeps the rows it has).
 */
async function listOf(sql: Queryable, appId: string, role: AppAccess): Promise<string[] | undefined> {
  const rows = await listedAccounts(sql, appId, role, WORKFLOW_LIST_MAX + 1);
  if (rows.length === 0 || rows.length > WORKFLOW_LIST_MAX || rows.some((row) => row.disabled))
    return undefined;
  return rows.map((row) => row.account);
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
    administrators: await listOf(sql, app.id, "admin"),
    guests: await listOf(sql, app.id, "guest"),
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
