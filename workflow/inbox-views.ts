import type { Queryable } from "../runtime/database.ts";
import { compiledVersion } from "./app-store.ts";
import type { CompiledWorkflow } from "./engine/compiled-workflow.ts";
import type { InboxProcessRow, TodoRow } from "./inbox-store.ts";

/**
 * The lists' entities as spec 001 writes them: `process` objects for 2.4-2.7 (without the tasks,
 * milestones and activities only 2.8 carries) and `task` objects for 2.3. Times are Unix seconds.
 */

const seconds = (date: Date | string | null) =>
  date === null ? null : Math.floor(new Date(date).getTime() / 1000);

/** The compiled versions the rows name, each read once. */
async function workflowsOf(sql: Queryable, versionIds: string[]): Promise<Map<string, CompiledWorkflow>> {
  const unique = [...new Set(versionIds)];
  const compiled = await Promise.all(unique.map((id) => compiledVersion(sql, id)));
  return new Map(unique.map((id, index) => [id, compiled[index]!]));
}

function nodeName(workflow: CompiledWorkflow | undefined, code: string): string {
  return workflow?.nodes.get(code)?.name ?? code;
}

export async function processListViews(sql: Queryable, rows: InboxProcessRow[], apiBase: string) {
  const workflows = await workflowsOf(
    sql,
    rows.map((row) => row.versionId),
  );
  return rows.map((row) => {
    const workflow = workflows.get(row.versionId);
    const states = row.states.map((code) => ({ code, nameEx: nodeName(workflow, code) }));
    return {
      id: row.id,
      name: row.name,
      uri: `${apiBase}/process/${row.entry}`,
      tags: row.tags,
      entry: row.entry,
      create: seconds(row.createdAt),
      update: seconds(row.updatedAt),
      read: seconds(row.readAt),
      ccCreate: seconds(row.ccCreatedAt),
      ccUpdate: seconds(row.ccUpdatedAt),
      sort: seconds(row.sort),
      app: { ...row.app, description: row.app.description ?? undefined },
      owner: row.owner,
      actualUser: row.actualUser,
      status: row.status,
      states,
      version: seconds(row.versionCreatedAt),
      rating: row.rating,
      review: row.review,
      priority: row.priority,
      pendingTasks: states.map((state) => state.nameEx).join(","),
      milestone: row.milestone ? { name: row.milestone.name, percent: row.milestone.percent } : null,
    };
  });
}

/** 2.3's tasks: each with its process, who it was assigned to (the entruster, for a delegated one). */
export async function todoViews(
  sql: Queryable,
  rows: TodoRow[],
  apiBase: string,
  user: { id: string; name: string; account: string; email: string | null; phone: string | null } | null,
) {
  const workflows = await workflowsOf(
    sql,
    rows.map((row) => row.process.versionId),
  );
  return rows.map((row) => {
    const workflow = workflows.get(row.process.versionId);
    const node = workflow?.nodes.get(row.node);
    const actions =
      node && (node.kind === "task" || node.kind === "start") ? workflow!.actionsOf(row.node) : [];
    const { versionId: _versionId, ...process } = row.process;
    return {
      id: row.taskId,
      name: nodeName(workflow, row.node),
      code: row.node,
      uri: `${apiBase}/process/${row.process.entry}?task=${row.taskId}`,
      description: row.process.name,
      process: {
        ...process,
        uri: `${apiBase}/process/${row.process.entry}`,
        app: { ...process.app, description: process.app.description ?? undefined },
      },
      assignUser: row.entrustedBy ?? user,
      entrusted: row.entrustedBy !== null,
      actionUser: null,
      actualUser: null,
      assignTime: seconds(row.assignedAt),
      actionTime: null,
      expireTime: seconds(row.expiresAt),
      actionName: null,
      remark: null,
      status: 1,
      thing: null,
      requiresThing: row.thing,
      actions: actions.map((action) => ({
        id: action.id,
        name: action.name,
        code: action.code,
        remarkRequired: action.remarkRequired,
      })),
      permission: { print: true, remind: true },
    };
  });
}
