import type { TaskNode, WorkflowNode } from "../contracts/workflow-definition.ts";
import type { Queryable } from "../runtime/database.ts";
import { compiledVersion } from "./app-store.ts";
import type { CompiledWorkflow } from "./engine/compiled-workflow.ts";
import type { TaskState } from "./process-state.ts";
import type { ProcessRow } from "./process-store.ts";
import {
  type AppFields,
  type ProcessParts,
  type ProfileView,
  readAncestors,
  readProfiles,
  readTaskExecutors,
  readTaskWithPeople,
  type TaskRecord,
} from "./process-view-store.ts";

/**
 * Spec 001's `process` and `task` objects as 2.8, 3.1 and 3.2 answer them. Times are Unix seconds;
 * users are `profile` objects; a referenced object carries only the common fields.
 */

export interface MilestoneView {
  name: string;
  percent: number;
  status: "todo" | "doing" | "done";
  nameIn: string;
  branch: string;
}

const TASK_STATUS: Record<string, number> = { todo: 1, done: 2, subprocess: 3 };

const seconds = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);

/** The profiles of these users, by id. */
export async function profiles(
  sql: Queryable,
  ids: Iterable<string | null>,
): Promise<Map<string, ProfileView>> {
  const wanted = [...new Set([...ids].filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await readProfiles(sql, wanted);
  return new Map(rows.map((row) => [row.id, row]));
}

function appReference(app: AppFields) {
  return {
    id: app.id,
    name: app.name,
    code: app.code,
    tags: app.tags,
    description: app.description ?? undefined,
  };
}

export interface ViewOptions {
  /** The API base the `uri`s are written under (`{PUBLIC_URL}/apis/v2` or `/apis/v2d`). */
  apiBase: string;
  /** Show steps marked hidden (2.8's `visibility=all`). */
  showHidden: boolean;
  /** Add the first 50 executors of to-do tasks. */
  includeExecutors: boolean;
  includeAncestors: boolean;
}

function nodeName(node: WorkflowNode | undefined, code: string): string {
  return node?.name ?? code;
}

function processReference(process: ProcessRow, apiBase: string) {
  return {
    id: process.id,
    name: process.name,
    entry: process.entry,
    uri: `${apiBase}/process/${process.entry}`,
    tags: process.tags,
  };
}

/** The task as spec 001 writes it. */
function taskView(
  task: TaskRecord,
  workflow: CompiledWorkflow,
  process: ProcessRow,
  users: Map<string, ProfileView>,
  options: ViewOptions,
  executors?: ProfileView[],
) {
  const node = workflow.nodes.get(task.node);
  const actions =
    node && (node.kind === "task" || node.kind === "start") ? workflow.actionsOf(task.node) : [];
  const actionName = task.action
    ? (actions.find((action) => action.code === task.action)?.name ?? task.action)
    : null;
  return {
    id: task.id,
    name: nodeName(node, task.node),
    code: task.node,
    uri: `${options.apiBase}/process/${process.entry}?task=${task.id}`,
    description: process.name,
    process: processReference(process, options.apiBase),
    sub: task.childProcessId ? { id: task.childProcessId } : undefined,
    assignUser: task.candidates.length === 1 ? (users.get(task.candidates[0]!) ?? null) : null,
    actionUser: task.handlerId ? (users.get(task.handlerId) ?? null) : null,
    actualUser: task.actualUserId ? (users.get(task.actualUserId) ?? null) : null,
    assignTime: seconds(task.assignedAt),
    actionTime: seconds(task.handledAt),
    expireTime: seconds(task.expiresAt),
    renderTime: seconds(task.renderedAt),
    actionName,
    remark: task.remark,
    review: task.review,
    screen: task.screen,
    status: TASK_STATUS[task.status] ?? 0,
    thing: task.thing ? { code: task.thing } : null,
    actions: actions.map((action) => ({
      id: action.id,
      name: action.name,
      code: action.code,
      remarkRequired: action.remarkRequired,
    })),
    executors,
    permission: { print: true, remind: task.status === "todo" },
  };
}

export type TaskView = ReturnType<typeof taskView>;

/**
 * A task a command just wrote, as 3.1, 3.2, 4.7 and 4.8 answer it: from the engine's state and the
 * people read with the write, without reading the task back.
 */
export async function taskViewOf(
  sql: Queryable,
  process: ProcessRow,
  task: TaskState,
  people: Map<string, ProfileView>,
  options: ViewOptions,
): Promise<TaskView> {
  const workflow = await compiledVersion(sql, process.versionId);
  const record: TaskRecord = {
    id: task.id,
    node: task.node,
    branch: task.branch,
    status: task.status,
    candidates: task.candidates,
    handlerId: task.handler,
    actualUserId: task.actualUser,
    action: task.action,
    remark: task.remark,
    review: null,
    thing: task.thing,
    screen: null,
    assignedAt: new Date(task.assignedAt),
    handledAt: task.handledAt === null ? null : new Date(task.handledAt),
    expiresAt: task.expiresAt === null ? null : new Date(task.expiresAt),
    renderedAt: null,
    childProcessId: task.child,
  };
  return taskView(record, workflow, process, people, options);
}

/** A task read from its row, with the people it names, in one query (the item tasks of 3.5). */
export async function taskViewById(
  sql: Queryable,
  process: ProcessRow,
  taskId: string,
  options: ViewOptions,
): Promise<TaskView> {
  const [task, workflow] = await Promise.all([
    readTaskWithPeople(sql, taskId),
    compiledVersion(sql, process.versionId),
  ]);
  const users = new Map(task!.people.map((person) => [person.id, person]));
  return taskView(task!, workflow, process, users, options);
}

function isHidden(node: WorkflowNode | undefined): boolean {
  return node?.kind === "task" && (node as TaskNode).hidden;
}

/** The milestones of the flow, in order of their percent, with how far the process got. */
function milestonesOf(
  workflow: CompiledWorkflow,
  process: ProcessRow,
  tasks: TaskRecord[],
  everyBranch: boolean,
): MilestoneView[] {
  const reached = process.milestone?.percent ?? -1;
  const ended = process.status === "done" || process.status === "killed";
  const branchOf = new Map(tasks.map((task) => [task.node, task.branch]));
  const views: MilestoneView[] = [];
  for (const node of workflow.definition.graph.nodes) {
    if (!node.milestone) continue;
    const branch = branchOf.get(node.code) ?? "";
    if (!everyBranch && branch !== "") continue;
    const status =
      node.milestone.percent < reached || (ended && node.milestone.percent === reached)
        ? "done"
        : node.milestone.percent === reached
          ? "doing"
          : "todo";
    views.push({
      name: node.milestone.name,
      percent: node.milestone.percent,
      status,
      nameIn: nodeName(node, node.code),
      branch,
    });
  }
  return views.sort((a, b) => a.percent - b.percent);
}

/** 2.8: the process with its tasks, milestones, where it stays, its activities. */
export async function processView(
  sql: Queryable,
  read: ProcessParts & { process: ProcessRow },
  options: ViewOptions,
) {
  const { process, tasks, activities, app, people } = read;
  const workflow = await compiledVersion(sql, process.versionId);
  const visible = tasks.filter((task) => options.showHidden || !isHidden(workflow.nodes.get(task.node)));
  const open = visible.filter((task) => task.status === "todo");
  const users = new Map(people.map((profile) => [profile.id, profile]));
  const executors = options.includeExecutors
    ? await executorsOf(
        sql,
        open.map((task) => task.id),
      )
    : new Map<string, string[]>();
  const unknown = [...executors.values()].flat().filter((id) => !users.has(id));
  for (const [id, profile] of await profiles(sql, unknown)) users.set(id, profile);
  const states = [
    ...new Map(
      open.map((task) => [
        task.node,
        { code: task.node, nameEx: nodeName(workflow.nodes.get(task.node), task.node) },
      ]),
    ).values(),
  ];
  const milestones = milestonesOf(workflow, process, tasks, false);
  const started = tasks.find((task) => workflow.nodes.get(task.node)?.kind === "start");
  return {
    id: process.id,
    name: process.name,
    uri: `${options.apiBase}/process/${process.entry}`,
    tags: process.tags,
    entry: process.entry,
    create: seconds(process.createdAt),
    update: seconds(process.updatedAt),
    // A single process has no list order to follow; its last change is what the lists' default
    // order sorts an owner's process by.
    sort: seconds(process.updatedAt),
    screen: started?.screen ?? null,
    app: app ? appReference(app) : null,
    owner: users.get(process.ownerId) ?? null,
    actualUser: process.actualUserId ? (users.get(process.actualUserId) ?? null) : null,
    status: process.status,
    states,
    version: seconds(app?.versionCreatedAt ?? null),
    rating: process.rating,
    review: process.review,
    priority: process.priority,
    businessId: process.businessId,
    pendingTasks: states.map((state) => state.nameEx).join(","),
    tasks: visible.map((task) =>
      taskView(
        task,
        workflow,
        process,
        users,
        options,
        options.includeExecutors && task.status === "todo"
          ? (executors.get(task.id) ?? [])
              .map((id) => users.get(id))
              .filter((user): user is ProfileView => !!user)
          : undefined,
      ),
    ),
    milestone: process.milestone
      ? (milestones.find((milestone) => milestone.name === process.milestone!.name) ?? {
          ...process.milestone,
          status: "doing",
          nameIn: "",
          branch: "",
        })
      : null,
    milestones,
    flow: milestonesOf(workflow, process, tasks, true),
    activities: activities
      .filter((activity) => options.showHidden || !activity.hidden)
      .map((activity) => ({
        user: activity.userId ? (users.get(activity.userId) ?? null) : null,
        description: activity.description,
        level: activity.level,
        timestamp: seconds(activity.createdAt),
        tags: activity.tags,
      })),
    ancestors: options.includeAncestors ? await ancestorsOf(sql, process, options.apiBase) : undefined,
  };
}

/** The first 50 users who may handle each to-do task (delegates included). */
async function executorsOf(sql: Queryable, taskIds: string[]): Promise<Map<string, string[]>> {
  if (taskIds.length === 0) return new Map();
  const rows = await readTaskExecutors(sql, taskIds);
  return new Map(rows.map((row) => [row.taskId, row.users]));
}

/** The ancestors of a sub-process, nearest first, at most 16. */
async function ancestorsOf(sql: Queryable, process: ProcessRow, apiBase: string) {
  const rows = await readAncestors(sql, process.parentProcessId);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    entry: row.entry,
    uri: `${apiBase}/process/${row.entry}`,
    tags: row.tags,
  }));
}
