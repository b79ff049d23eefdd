import type { Bootstrap, BootstrapWorkflow, DeployedVersionFields } from "../contracts/bootstrap.ts";
import { PlatformError } from "../contracts/errors.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { tenantIdOf } from "../identity/tenants.ts";
import type { BootstrapEntry } from "../runtime/bootstrap.ts";
import { ConfigError } from "../runtime/config.ts";
import type { Queryable } from "../runtime/database.ts";
import { checkAppTags } from "../tenant/tags.ts";
import { APP_LISTS, type AppList, granteeList, replaceGranteeList } from "./app-access.ts";
import { deployVersion, setVersionOnline, upsertWorkflowApp, type WorkflowApp } from "./app-store.ts";
import { importBpmn } from "./bpmn/bpmn-import.ts";
import { keepVersionDiagram } from "./version-diagram-store.ts";

/** A deployed version: its id and number, and whether this deployment created it. */
export interface DeployedVersion {
  id: string;
  number: number;
  created: boolean;
}

/**
 * Creates or updates a workflow app and deploys its versions (a definition deployed before is the
 * same version again), each put on or off line for formal and test data as the entry says (left
 * out: as it is); the
 * lists of administrators, guests and starters given replace those the entry gave before. Its tags
 * are held to the tenant's tags, when the tenant keeps any.
 */
export async function deployWorkflow(
  sql: Queryable,
  tenantId: string,
  workflow: Omit<BootstrapWorkflow, "tenant" | "versions"> & { versions: DeployedVersionFields[] },
): Promise<{ app: WorkflowApp; versions: DeployedVersion[] }> {
  const { versions, administrators, guests, starters, ...fields } = workflow;
  if (fields.tags) await checkAppTags(sql, tenantId, fields.tags);
  const app = await upsertWorkflowApp(sql, tenantId, fields);
  const lists = { administrators, guests, starters };
  for (const name of Object.keys(APP_LISTS) as AppList[]) {
    const list = lists[name];
    if (!list) continue;
    const on = { tenantId, scope: "workflow" as const, object: app.id };
    await replaceGranteeList(sql, on, name, APP_LISTS[name], granteeList(list));
  }
  const deployed: DeployedVersion[] = [];
  for (const version of versions) {
    const { definition, layout } = version.bpmn
      ? await importBpmn(version.bpmn)
      : { definition: version.definition!, layout: null };
    const { version: row, created } = await deployVersion(sql, app.id, definition, version.name);
    if (layout) await keepVersionDiagram(sql, row.id, layout);
    if (version.online !== undefined) await setVersionOnline(sql, app.id, row.id, false, version.online);
    if (version.beta !== undefined) await setVersionOnline(sql, app.id, row.id, true, version.beta);
    deployed.push({ id: row.id, number: row.number, created });
  }
  return { app, versions: deployed };
}

/** The bootstrap file's `workflows`, as entries the bootstrap applies like its own. */
export function workflowBootstrapEntries(bootstrap: Bootstrap): BootstrapEntry[] {
  return bootstrap.workflows.map((workflow) => ({
    kind: "workflow",
    key: `${workflow.tenant}/${workflow.code}`,
    value: workflow,
    async apply(tx: Queryable) {
      const tenantId = await tenantIdOf(tx, workflow.tenant, `workflow ${workflow.code}`);
      const { tenant: _, ...rest } = workflow;
      await deployWorkflow(tx, tenantId, rest).catch((error: Error) => {
        if (error instanceof WorkflowRefusal && error.refusal === "TAG_NOT_FOUND")
          throw new ConfigError(`workflow ${workflow.code}: ${error.message}`);
        if (error instanceof PlatformError && error.message.startsWith("bpmn:"))
          throw new ConfigError(`workflow ${workflow.code}: ${error.message}`);
        throw error;
      });
    },
  }));
}
