import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Queryable } from "../runtime/database.ts";
import { type WorkflowApp, workflowAppByIdOrCode } from "./app-store.ts";
import type { WorkflowCaller } from "./workflow-caller.ts";

/** The app a Workflow application's token is confined to, or undefined for other applications. */
export async function ownAppId(sql: Queryable, caller: WorkflowCaller): Promise<string | undefined> {
  if (!caller.workflowCode) return undefined;
  const own = await workflowAppByIdOrCode(sql, caller.tenantId, caller.workflowCode);
  if (!own) throw new WorkflowRefusal("APP_NOT_FOUND", `no workflow ${caller.workflowCode}`);
  return own.id;
}

/** An app the caller sees, by id or code: a Workflow application's token sees its own only. */
export async function visibleApp(sql: Queryable, caller: WorkflowCaller, idc: string): Promise<WorkflowApp> {
  const found = await workflowAppByIdOrCode(sql, caller.tenantId, idc);
  if (!found || (caller.workflowCode && found.code !== caller.workflowCode)) {
    throw new WorkflowRefusal("APP_NOT_FOUND", `no workflow ${idc}`);
  }
  return found;
}

/**
 * The app a call names with `app` (id or code), or without it the caller's own workflow (undefined
 * for an application of every workflow). A Workflow application's token names its own only, and is
 * refused with `mismatch` otherwise.
 */
export async function namedOrOwnAppId(
  sql: Queryable,
  caller: WorkflowCaller,
  app: string | undefined,
  mismatch: string,
): Promise<string | undefined> {
  const named = app ? await workflowAppByIdOrCode(sql, caller.tenantId, app) : undefined;
  if (app && !named) throw new WorkflowRefusal("APP_NOT_FOUND", `no workflow ${app}`);
  const own = await ownAppId(sql, caller);
  if (own && named && named.id !== own) throw new WorkflowRefusal("WORKFLOW_MISMATCH", mismatch);
  return named?.id ?? own;
}
