import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Sql } from "../runtime/database.ts";
import { ownAppId } from "./own-workflow.ts";
import { processByRef } from "./process-store.ts";
import { taskViewById } from "./process-views.ts";
import { createPickup, pickupByCode, thingByCode, thingTasks } from "./thing-store.ts";
import type { WorkflowCaller } from "./workflow-caller.ts";

/** A pickup code lasts a week unless the caller says otherwise. */
const DEFAULT_PICKUP_SECONDS = 7 * 24 * 3600;

/** 11.1: a pickup code for an item (made, with `name`, when new), until `expire` (Unix seconds). */
export async function newPickup(
  sql: Sql,
  caller: WorkflowCaller,
  code: string,
  input: { name?: string | undefined; expire?: number | undefined },
) {
  const now = Math.floor(Date.now() / 1000);
  const expire = input.expire ?? now + DEFAULT_PICKUP_SECONDS;
  if (expire <= now) throw new WorkflowRefusal("DATA_INVALID", "expire: a time to come");
  const thing = { code, name: input.name };
  return createPickup(sql, caller.tenantId, caller.test, thing, caller.userId ?? null, expire);
}

/** 11.2: an item by code, or a refusal. */
export async function thing(sql: Sql, caller: WorkflowCaller, code: string) {
  const found = await thingByCode(sql, caller.tenantId, caller.test, code);
  if (!found) throw new WorkflowRefusal("THING_NOT_FOUND", `no item ${code}`);
  return found;
}

/** 11.3: what a pickup code collects, while it is unused and unexpired; nothing after. */
export async function usablePickup(sql: Sql, caller: WorkflowCaller, code: string) {
  const pickup = await pickupByCode(sql, caller.tenantId, caller.test, code);
  if (!pickup) throw new WorkflowRefusal("PICKUP_NOT_FOUND", `no pickup code ${code}`);
  return pickup.usedTime === null && pickup.expireTime > Date.now() / 1000 ? pickup : undefined;
}

/** 3.5: the tasks waiting for an item, each with how the user may collect it. */
export async function tasksWaitingFor(sql: Sql, caller: WorkflowCaller, code: string, apiBase: string) {
  const rows = await thingTasks(
    sql,
    caller.tenantId,
    caller.test,
    code,
    caller.userId!,
    await ownAppId(sql, caller),
  );
  const tasks = [];
  for (const row of rows) {
    const process = await processByRef(sql, caller.tenantId, caller.test, { id: row.processId });
    if (!process) continue;
    const task = await taskViewById(sql, process, row.taskId, {
      apiBase,
      showHidden: false,
      includeExecutors: false,
      includeAncestors: false,
    });
    tasks.push({ ...task, collect: row.collect });
  }
  return tasks;
}
