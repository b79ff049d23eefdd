import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Queryable } from "../runtime/database.ts";
import { ownAppId } from "./own-workflow.ts";
import { type ProcessRow, processByRef, processRef, tookPart } from "./process-store.ts";
import { readProcessWithParts } from "./process-view-store.ts";
import type { WorkflowCaller } from "./workflow-caller.ts";

/** Whether the caller may see or act on a process: a sys token of its tenant (and workflow), a user who took part. */
export async function requireAccess(
  sql: Queryable,
  caller: WorkflowCaller,
  process: ProcessRow,
): Promise<void> {
  await requireOwnWorkflow(sql, caller, process);
  if (caller.sys) return;
  if (!caller.userId || !(await tookPart(sql, process.id, caller.userId))) {
    throw new WorkflowRefusal("PROCESS_NOT_FOUND", "no such process among those the user took part in");
  }
}

/** A Workflow application's token sees and acts on its own workflow's processes only. */
export async function requireOwnWorkflow(
  sql: Queryable,
  caller: WorkflowCaller,
  process: ProcessRow,
): Promise<void> {
  const own = await ownAppId(sql, caller);
  if (own && own !== process.appId)
    throw new WorkflowRefusal("WORKFLOW_MISMATCH", "the application's token sees its own workflow only");
}

/** The caller's process by serial number or id, in its tenant and data mode, or a refusal. */
export async function loadProcess(sql: Queryable, caller: WorkflowCaller, id: string): Promise<ProcessRow> {
  const ref = processRef(id);
  const process = ref ? await processByRef(sql, caller.tenantId, caller.test, ref) : undefined;
  if (!process) throw new WorkflowRefusal("PROCESS_NOT_FOUND", `no process ${id}`);
  return process;
}

/** A process with what its view shows, read in one statement; refused as `loadProcess` refuses. */
export async function loadProcessWithParts(sql: Queryable, caller: WorkflowCaller, id: string) {
  const ref = processRef(id);
  const read = ref ? await readProcessWithParts(sql, caller.tenantId, caller.test, ref) : undefined;
  if (!read) throw new WorkflowRefusal("PROCESS_NOT_FOUND", `no process ${id}`);
  return read;
}
