import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { type Queryable, type Sql, transaction } from "../runtime/database.ts";
import { grantHolders } from "./access-grant-store.ts";
import { parseFormData } from "./form-data.ts";
import { ownAppId } from "./own-workflow.ts";
import { loadProcess } from "./process-access.ts";
import { changeProcessData, type DataCaller, exportTemplateOf, requireDataAccess } from "./process-data.ts";
import { type ProcessRow, processRef } from "./process-store.ts";
import type { WorkflowCaller } from "./workflow-caller.ts";

async function dataCaller(db: Queryable, caller: WorkflowCaller): Promise<DataCaller> {
  return { sys: caller.sys, userId: caller.userId, appId: await ownAppId(db, caller) };
}

/** A process whose data the caller may view, by serial number or id, or a refusal. */
export async function readableProcess(
  sql: Queryable,
  caller: WorkflowCaller,
  id: string,
): Promise<ProcessRow> {
  const process = await loadProcess(sql, caller, id);
  await requireDataAccess(sql, await dataCaller(sql, caller), process, "view");
  return process;
}

/** 2.11: merges fields into a running process's data, each checked against its version's form. */
export async function changeDataOf(
  deps: { sql: Sql; jsonMaxDepth: number },
  caller: WorkflowCaller,
  id: string,
  data: unknown,
): Promise<Record<string, unknown>> {
  const change = parseFormData(data, deps.jsonMaxDepth);
  const ref = processRef(id);
  if (!ref) throw new WorkflowRefusal("PROCESS_NOT_FOUND", `no process ${id}`);
  return transaction(deps.sql, async (tx) =>
    changeProcessData(
      tx,
      { tenantId: caller.tenantId, test: caller.test, ref },
      await dataCaller(tx, caller),
      change,
    ),
  );
}

/** 2.10: a readable process with the export template (by id or name; the first by default) it fills. */
export async function processToExport(sql: Sql, caller: WorkflowCaller, id: string, docTemplate?: string) {
  const process = await readableProcess(sql, caller, id);
  return { process, ...(await exportTemplateOf(sql, process, docTemplate)) };
}

/** 4.12: the people of a process by `cate`; `admin`, its app's administrators, is the one served. */
export async function processPeople(sql: Sql, caller: WorkflowCaller, id: string, cate: string) {
  if (cate !== "admin")
    throw new WorkflowRefusal("NOT_SUPPORTED", `4.12: cate ${cate} is not served; admin is`);
  const process = await readableProcess(sql, caller, id);
  const on = {
    tenantId: process.tenantId,
    test: process.test,
    scope: "workflow" as const,
    object: process.appId,
  };
  return grantHolders(sql, on, ["W"]);
}
