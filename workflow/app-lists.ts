import type { AppAccess } from "./app-access.ts";
import {
  type ListScope,
  permittedApps,
  permittedProcesses,
  ratedProcesses,
  recommendedApps,
  startableApps,
} from "./app-list-store.ts";
import { visibleApp } from "./own-workflow.ts";
import { subjectOf, type WorkflowCaller } from "./workflow-caller.ts";
import type { WorkflowDeps } from "./workflow-deps.ts";

export { APP_ACCESS } from "./app-access.ts";

/** The lists need the database and the API base their `uri`s are written under. */
type ListDeps = Pick<WorkflowDeps, "sql" | "apiBase">;

interface Page {
  start: number;
  limit: number;
}

function scopeOf(deps: ListDeps, caller: WorkflowCaller): ListScope {
  return {
    tenantId: caller.tenantId,
    test: caller.test,
    appCode: caller.workflowCode,
    apiBase: deps.apiBase,
  };
}

/** 2.1: the apps the user may start. */
export async function appsToStart(deps: ListDeps, caller: WorkflowCaller, named: string | undefined) {
  const userId = await subjectOf(deps.sql, caller, named);
  return startableApps(deps.sql, { ...scopeOf(deps, caller), userId });
}

/** 4.3: the apps the user administers, or may view. */
export async function appsPermitted(
  deps: ListDeps,
  caller: WorkflowCaller,
  named: string | undefined,
  access: AppAccess,
) {
  return permittedApps(deps.sql, scopeOf(deps, caller), await subjectOf(deps.sql, caller, named), access);
}

/** 4.4: the processes of the apps the user administers, or may view, newest first. */
export async function processesPermitted(
  deps: ListDeps,
  caller: WorkflowCaller,
  named: string | undefined,
  access: AppAccess,
  page: Page,
) {
  const userId = await subjectOf(deps.sql, caller, named);
  return permittedProcesses(deps.sql, scopeOf(deps, caller), userId, access, page);
}

/** 4.10: the startable apps recommended above 0, highest first; those the user may start when `userId` names one. */
export function appsRecommended(deps: ListDeps, caller: WorkflowCaller, page: Page) {
  return recommendedApps(deps.sql, { ...scopeOf(deps, caller), userId: caller.userId }, page);
}

/** 4.11: the rated processes of an app the caller sees (id or code), most recently changed first. */
export async function appRatings(deps: ListDeps, caller: WorkflowCaller, idc: string, page: Page) {
  const found = await visibleApp(deps.sql, caller, idc);
  return ratedProcesses(deps.sql, scopeOf(deps, caller), found.id, page);
}
