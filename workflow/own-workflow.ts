import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Queryable } from "../runtime/database.ts";
import { workflowAppByIdOrCode } from "./app-store.ts";
import type { WorkflowCaller } from "./workflow-caller.ts";

/** The app a Workflow application's token is confined to, or undefined for other applications. */
export async function ownAppId(sql: Queryable, caller: WorkflowCaller): Promise<string | undefined> {
  if (!caller.workflowCode) return undefined;
  const own = await workflowAppByIdOrCode(sql, caller.tenantId, caller.workflowCode);
  if (!own) throw new WorkflowRefusal("APP_NOT_FOUND", `no workflow ${caller.workflowCode}`);
  return own.id;
}
