import type { WorkflowDefinition } from "../contracts/workflow-definition.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Queryable } from "../runtime/database.ts";
import { holdsGrant } from "./access-grant-store.ts";
import { permissionsGranting } from "./app-access.ts";
import { compiledVersion } from "./app-store.ts";
import { checkFormData } from "./form-data.ts";
import {
  lockProcess,
  type ProcessRef,
  type ProcessRow,
  tookPart,
  updateProcessData,
} from "./process-store.ts";
import { recordActivity } from "./result-writer.ts";
import { thingCodes } from "./thing-store.ts";

type ExportTemplate = WorkflowDefinition["exportTemplates"][number];

/**
 * A process's data (spec 001 2.9-2.11): read, changed field by field against its version's form,
 * and the export templates of its version.
 */

/** Who asks: a sys token (of the process's app, when `appId` is given) or a user. */
export interface DataCaller {
  sys: boolean;
  userId: string | undefined;
  /** A Workflow application's own app: it reaches that app's processes only. */
  appId: string | undefined;
}

/**
 * Whether the caller may read (`view`) or change (`edit`) the process's data: a sys token of its
 * tenant (and workflow); a user who took part in it, or who may view (read) or administers (change)
 * its app. Anyone else is told there is no such process.
 */
export async function requireDataAccess(
  sql: Queryable,
  caller: DataCaller,
  process: ProcessRow,
  need: "view" | "edit",
): Promise<void> {
  if (caller.appId && caller.appId !== process.appId)
    throw new WorkflowRefusal("WORKFLOW_MISMATCH", "the application's token sees its own workflow only");
  if (caller.sys) return;
  const userId = caller.userId;
  if (
    !userId ||
    !(
      (await tookPart(sql, process.id, userId)) ||
      (await holdsGrant(
        sql,
        { tenantId: process.tenantId, test: process.test, scope: "workflow", object: process.appId },
        userId,
        permissionsGranting(need === "view" ? "guest" : "admin"),
      ))
    )
  ) {
    throw new WorkflowRefusal("PROCESS_NOT_FOUND", "no such process among those the user took part in");
  }
}

/**
 * 2.11: merges the given fields into the process's data, each checked against its version's form,
 * under the process's lock, and records the change as a DATABINDING activity. Refused on a process
 * that has ended. Answers the data as it is now.
 */
export async function changeProcessData(
  tx: Queryable,
  target: { tenantId: string; test: boolean; ref: ProcessRef },
  caller: DataCaller,
  change: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const names = Object.keys(change);
  if (names.length === 0) throw new WorkflowRefusal("DATA_INVALID", "data: name at least one field");
  const locked = await lockProcess(tx, target.tenantId, target.test, target.ref);
  if (!locked) throw new WorkflowRefusal("PROCESS_NOT_FOUND", "no such process");
  const { process } = locked;
  await requireDataAccess(tx, caller, process, "edit");
  if (process.status === "done" || process.status === "killed")
    throw new WorkflowRefusal(
      "PROCESS_ENDED",
      `process ${process.entry} has ended; its data stays as it was`,
    );
  const { fields } = (await compiledVersion(tx, process.versionId)).definition.schema;
  checkFormData(fields, change);
  const data = { ...process.data, ...change };
  await updateProcessData(tx, process.id, data, thingCodes(fields, data));
  await recordActivity(tx, process, {
    category: "DATABINDING",
    level: "INFO",
    tags: "data",
    description: `data changed: ${names.join(", ")}`,
    user: caller.userId ?? null,
    task: null,
  });
  return data;
}

/**
 * 2.10's template: by id, or by name when exactly one template has it; without `docTemplate` the
 * version's first. Refused when the version has none, or the name is not one template's.
 */
export async function exportTemplateOf(
  sql: Queryable,
  process: ProcessRow,
  docTemplate: string | undefined,
): Promise<{ template: ExportTemplate; fields: { name: string; type: string }[] }> {
  const { definition } = await compiledVersion(sql, process.versionId);
  const templates = definition.exportTemplates;
  let template: ExportTemplate | undefined;
  if (docTemplate === undefined) {
    template = templates[0];
    if (!template)
      throw new WorkflowRefusal(
        "TEMPLATE_NOT_FOUND",
        "the process's workflow version has no export template",
      );
  } else {
    template = templates.find((candidate) => candidate.id === docTemplate);
    if (!template) {
      const named = templates.filter((candidate) => candidate.name === docTemplate);
      if (named.length > 1)
        throw new WorkflowRefusal(
          "TEMPLATE_NOT_FOUND",
          `docTemplate: ${named.length} templates are named ${docTemplate}; give the id`,
        );
      template = named[0];
    }
    if (!template)
      throw new WorkflowRefusal(
        "TEMPLATE_NOT_FOUND",
        `docTemplate: no template ${docTemplate} in the version`,
      );
  }
  // Items print as barcodes; other values as the template formats them.
  const fields = definition.schema.fields
    .filter((field) => field.type === "thing")
    .map((field) => ({ name: field.name, type: "thing" }));
  return { template, fields };
}
