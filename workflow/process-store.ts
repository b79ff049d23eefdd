import type postgres from "postgres";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Queryable } from "../runtime/database.ts";
import type { Milestone, ProcessState, ProcessStatus } from "./process-state.ts";

/** A process row: what the engine's state leaves out (who, which app, which mode) and its header. */
export interface ProcessRow {
  id: string;
  entry: number;
  tenantId: string;
  test: boolean;
  appId: string;
  versionId: string;
  name: string;
  tags: string;
  ownerId: string;
  actualUserId: string | null;
  status: ProcessStatus;
  priority: string;
  rating: number | null;
  review: string | null;
  data: Record<string, unknown>;
  businessId: string | null;
  milestone: Milestone | null;
  archived: boolean;
  /** The item codes the data names (3.5). */
  things: string[];
  parentProcessId: string | null;
  parentTaskId: string | null;
  depth: number;
  createdAt: Date;
  updatedAt: Date;
  endedAt: Date | null;
  /**
   * Raised by every write of the engine's state (commands, 2.11's data changes): a write decided on
   * an unlocked read checks it.
   */
  revision: number;
}

export const PROCESS_COLUMNS = `id, entry::float8 as entry, tenant_id as "tenantId", test, app_id as "appId",
  version_id as "versionId", name, tags, owner_id as "ownerId", actual_user_id as "actualUserId", status,
  priority, rating, review, data, business_id as "businessId", milestone, archived, things,
  parent_process_id as "parentProcessId", parent_task_id as "parentTaskId", depth,
  created_at as "createdAt", updated_at as "updatedAt", ended_at as "endedAt", revision`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a caller's id can name a row at all (a task id that is no GUID names none). */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}

/** How a caller names a process: its GUID or its serial number. */
export type ProcessRef = { id: string } | { entry: number };

export function processRef(text: string): ProcessRef | undefined {
  if (/^[0-9]{1,15}$/.test(text)) return { entry: Number(text) };
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text))
    return { id: text.toLowerCase() };
  return undefined;
}

/** The condition that picks the process a ref names, by GUID or serial number. */
export function whereRef(sql: Queryable, ref: ProcessRef) {
  return "id" in ref ? sql`id = ${ref.id}` : sql`entry = ${ref.entry}`;
}

/** How a command names the process it runs on: by GUID, by serial number, or by one of its tasks. */
export type LockTarget = ProcessRef | { task: string };

/** Serial numbers count per tenant: one names a process only with its tenant. */
function processIdOf(sql: Queryable, tenantId: string, target: LockTarget) {
  if ("task" in target) return sql`(select process_id from workflow_tasks where id = ${target.task})`;
  if ("id" in target) return sql`${target.id}::uuid`;
  return sql`(select id from workflow_processes where tenant_id = ${tenantId} and entry = ${target.entry})`;
}

export interface ProcessWithState {
  process: ProcessRow;
  state: ProcessState;
  /** The candidate on whose behalf `handlerFor` handles the task: the user, or who entrusted it to them. */
  handler?: string;
}

/**
 * The process of the tenant and mode, locked until the transaction ends (commands on one process
 * take turns), with the engine's view of it read after the lock, in one round trip.
 *
 * A sub-process is locked with its ancestors, the top one first and itself last: a command that
 * ends it goes on to its parent (and that parent, ending, to its own), while a kill of an ancestor
 * goes down to it. Taken top-down by both, the locks are never held in two orders at once, so the
 * two take turns instead of each holding what the other waits for.
 */
export async function lockProcess(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  target: LockTarget,
  options: { handlerFor?: string | undefined } = {},
): Promise<ProcessWithState | undefined> {
  if ("task" in target && !isUuid(target.task)) return undefined;
  const id = processIdOf(sql, tenantId, target);
  const user = "task" in target ? options.handlerFor : undefined;
  // Sent after the lock in the same round trip, the read waits for it and sees what it guards.
  const [family, [state]] = await Promise.all([
    sql<ProcessRow[]>`
      with recursive line (id, parent) as (
        select id, parent_process_id from workflow_processes
        where id = ${id} and tenant_id = ${tenantId} and test = ${test}
        union all
        select p.id, p.parent_process_id from workflow_processes p join line on p.id = line.parent
      )
      select ${sql.unsafe(PROCESS_COLUMNS)} from workflow_processes
      where id = any(array(select id from line))
      order by depth
      for update`,
    sql<StateColumns[]>`select ${stateColumns(sql, id, target, user)}`,
  ]);
  // The process is the deepest of its line: each sub-process is one level below its parent.
  const process = family.at(-1);
  return process && withState(process, state!, user);
}

/**
 * The process and the engine's view of it as one statement reads them, without a lock: what a
 * command decides on it is written only while the process's revision is still the one read.
 */
export async function readProcess(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  target: LockTarget,
  options: { handlerFor?: string | undefined } = {},
): Promise<ProcessWithState | undefined> {
  if ("task" in target && !isUuid(target.task)) return undefined;
  const user = "task" in target ? options.handlerFor : undefined;
  const [row] = await sql<(ProcessRow & StateColumns)[]>`
    select ${sql.unsafe(PROCESS_COLUMNS)}, ${stateColumns(sql, sql`p.id`, target, user)}
    from workflow_processes p
    where id = ${processIdOf(sql, tenantId, target)} and tenant_id = ${tenantId} and test = ${test}`;
  if (!row) return undefined;
  const { tasks, branches, entrustedBy, ...process } = row;
  return withState(process, { tasks, branches, entrustedBy }, user);
}

/** These processes with the engine's view of each, read together; any tenant's (for the operator's checks). */
export async function readProcessesWithState(
  sql: Queryable,
  processIds: readonly string[],
): Promise<ProcessWithState[]> {
  if (processIds.length === 0) return [];
  const rows = await sql<(ProcessRow & StateColumns)[]>`
    select ${sql.unsafe(PROCESS_COLUMNS)}, ${stateColumns(sql, sql`p.id`, { id: "" }, undefined)}
    from workflow_processes p
    where id = any(${processIds as string[]}::uuid[])`;
  return rows.map(({ tasks, branches, entrustedBy, ...process }) =>
    withState(process, { tasks, branches, entrustedBy }, undefined),
  );
}

type StateColumns = Pick<ProcessState, "tasks" | "branches"> & { entrustedBy?: (string | null)[] };

/** The tasks and branches of the process `id` names, and whom `user`'s to-do row of the task stands for. */
function stateColumns(sql: Queryable, id: postgres.Fragment, target: LockTarget, user: string | undefined) {
  return sql`
    ${
      user && "task" in target
        ? sql`(select coalesce(json_agg(entrusted_by), '[]') from workflow_todo
               where task_id = ${target.task} and user_id = ${user}) as "entrustedBy",`
        : sql``
    }
    (select coalesce(json_agg(json_build_object(
        'id', id, 'node', node, 'branch', branch, 'status', status, 'candidates', candidates,
        'group', group_id, 'turn', turn, 'handler', handler_id, 'actualUser', actual_user_id,
        'action', action, 'remark', remark, 'thing', thing, 'trail', trail, 'child', child_process_id,
        'assignedAt', floor(extract(epoch from assigned_at) * 1000)::bigint, 'handledAt', floor(extract(epoch from handled_at) * 1000)::bigint,
        'expiresAt', floor(extract(epoch from expires_at) * 1000)::bigint) order by assigned_at, id), '[]')
     from workflow_tasks where process_id = ${id}) as tasks,
    (select coalesce(json_agg(json_build_object(
        'path', path, 'parent', parent, 'split', split, 'fork', fork, 'item', item, 'status', status)), '[]')
     from workflow_branches where process_id = ${id}) as branches`;
}

function withState(process: ProcessRow, state: StateColumns, user: string | undefined): ProcessWithState {
  const entrustedBy = state.entrustedBy ?? [];
  return {
    handler: user && (entrustedBy.length === 0 || entrustedBy.includes(null) ? user : entrustedBy[0]!),
    process,
    state: {
      status: process.status,
      owner: process.ownerId,
      data: process.data,
      milestone: process.milestone,
      tasks: state.tasks,
      branches: state.branches,
    },
  };
}

export async function processByRef(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  ref: ProcessRef,
): Promise<ProcessRow | undefined> {
  const [row] = await sql<ProcessRow[]>`
    select ${sql.unsafe(PROCESS_COLUMNS)} from workflow_processes
    where ${whereRef(sql, ref)} and tenant_id = ${tenantId} and test = ${test}`;
  return row;
}

/** Whether `ancestorId` is the process's parent, grandparent, … (at most 16 levels up). */
export async function isAncestor(sql: Queryable, ancestorId: string, process: ProcessRow): Promise<boolean> {
  if (!process.parentProcessId) return false;
  const [row] = await sql<{ yes: boolean }[]>`
    with recursive up(id, parent, level) as (
      select id, parent_process_id, 0 from workflow_processes where id = ${process.parentProcessId}
      union all
      select p.id, p.parent_process_id, up.level + 1 from workflow_processes p join up on p.id = up.parent where up.level < 15
    )
    select exists (select from up where id = ${ancestorId}) as yes`;
  return row!.yes;
}

/**
 * 4.6: who may handle a task of the tenant and mode now, delegates included (nobody once it is
 * handled); a Workflow app's token names its own app. A task of another tenant or mode is not found.
 */
export async function todoUsersOfTask(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  taskId: string,
  ownAppId?: string,
): Promise<string[]> {
  const [task] = isUuid(taskId)
    ? await sql<{ appId: string; users: string[] }[]>`
        select p.app_id as "appId", array(select d.user_id from workflow_todo d where d.task_id = t.id) as users
        from workflow_tasks t join workflow_processes p on p.id = t.process_id
        where t.id = ${taskId} and p.tenant_id = ${tenantId} and p.test = ${test}`
    : [];
  if (!task) throw new WorkflowRefusal("TASK_NOT_FOUND", `no task ${taskId}`);
  if (ownAppId && task.appId !== ownAppId)
    throw new WorkflowRefusal("WORKFLOW_MISMATCH", "the application's token sees its own workflow only");
  return task.users;
}

/** Whose to-do each of the tasks is now (candidates and their delegates), for tasks still to do. */
export async function todoUsersOfTasks(
  sql: Queryable,
  taskIds: readonly string[],
): Promise<Map<string, string[]>> {
  if (taskIds.length === 0) return new Map();
  const rows = await sql<{ taskId: string; users: string[] }[]>`
    select task_id as "taskId", array_agg(user_id order by user_id) as users from workflow_todo
    where task_id = any(${taskIds as string[]}::uuid[]) group by task_id`;
  return new Map(rows.map((row) => [row.taskId, row.users]));
}

/** What a notice about a process names: its name, serial number, version, owner, and the node of each task asked for. */
export async function noticeSubjects(
  sql: Queryable,
  processIds: readonly string[],
  taskIds: readonly string[],
): Promise<{
  processes: Map<string, { name: string; entry: number; versionId: string; ownerId: string }>;
  taskNodes: Map<string, string>;
}> {
  const [processes, tasks] = await Promise.all([
    sql<{ id: string; name: string; entry: number; versionId: string; ownerId: string }[]>`
      select id, name, entry, version_id as "versionId", owner_id as "ownerId" from workflow_processes
      where id = any(${processIds as string[]}::uuid[])`,
    taskIds.length === 0
      ? []
      : sql<{ id: string; node: string }[]>`
          select id, node from workflow_tasks where id = any(${taskIds as string[]}::uuid[])`,
  ]);
  return {
    processes: new Map(processes.map(({ id, ...process }) => [id, process])),
    taskNodes: new Map(tasks.map((task) => [task.id, task.node])),
  };
}

/** Whether the user took part in the process: started it, may handle or handled one of its tasks, or was copied. */
export async function tookPart(sql: Queryable, processId: string, userId: string): Promise<boolean> {
  const [row] = await sql<{ yes: boolean }[]>`
    select exists (select from workflow_processes where id = ${processId} and (owner_id = ${userId} or actual_user_id = ${userId}))
        or exists (select from workflow_tasks where process_id = ${processId}
                   and (handler_id = ${userId} or actual_user_id = ${userId} or ${userId}::uuid = any(candidates)))
        or exists (select from workflow_todo where process_id = ${processId} and user_id = ${userId})
        or exists (select from workflow_cc where process_id = ${processId} and user_id = ${userId}) as yes`;
  return row!.yes;
}

/** Whether anyone but the owner handled a task of the process. */
export async function othersTookPart(sql: Queryable, process: ProcessRow): Promise<boolean> {
  const [row] = await sql<{ yes: boolean }[]>`
    select exists (select from workflow_tasks where process_id = ${process.id} and status = 'done'
                   and coalesce(actual_user_id, handler_id) is distinct from ${process.ownerId}::uuid) as yes`;
  return row!.yes;
}

/** 4.5 `rate`, `mark`, `archive`: header fields outside the engine's state; those left out stay. */
export async function updateProcessHeader(
  sql: Queryable,
  processId: string,
  change: { rating?: number; review?: string; priority?: string; archived?: boolean },
): Promise<void> {
  await sql`
    with header as (
      update workflow_processes set
        rating = coalesce(${change.rating ?? null}::integer, rating),
        review = coalesce(${change.review ?? null}::text, review),
        priority = coalesce(${change.priority ?? null}::text, priority),
        archived = coalesce(${change.archived ?? null}::boolean, archived),
        updated_at = now()
      where id = ${processId}
      returning rating, archived, updated_at),
    todo as (update workflow_todo t set archived = h.archived from header h where t.process_id = ${processId})
    update workflow_inbox i set rating = h.rating, archived = h.archived, updated_at = h.updated_at
    from header h where i.process_id = ${processId}`;
}

/**
 * 4.5 `tag`: adds a tag to the process's tags (a tag it has already changes nothing), and to its
 * search text, so the lists' `keyword` finds it by the tag.
 */
export async function addProcessTag(sql: Queryable, processId: string, tag: string): Promise<void> {
  await sql`
    with header as (
      update workflow_processes set tags = case when tags = '' then ${tag} else tags || ',' || ${tag} end
      where id = ${processId} and not (${tag} = any(string_to_array(tags, ',')))
      returning id),
    words as (select s.process_id, s.text || ' ' || lower(${tag}) as text
              from workflow_process_search s join header h on h.id = s.process_id)
    update workflow_process_search s
    set text = w.text, words = to_tsvector('simple', workflow_search_words(w.text))
    from words w where s.process_id = w.process_id`;
}

/** 4.5 `read`, `unread`, `dismiss`: a user's copy of a process (every user's, for `dismiss *`). */
export async function changeCopies(
  sql: Queryable,
  processId: string,
  users: string[] | "all",
  change: "read" | "unread" | "dismiss",
): Promise<number> {
  const who = users === "all" ? sql`true` : sql`user_id = any(${users}::uuid[])`;
  // The inbox rows of the copies change with them; a row that held nothing but the copy goes.
  const rows =
    change === "dismiss"
      ? await sql`
          with copy as (delete from workflow_cc where process_id = ${processId} and ${who} returning user_id),
          kept as (
            update workflow_inbox set cc = false, cc_created_at = null, cc_updated_at = null, read_at = null
            where process_id = ${processId} and user_id in (select user_id from copy) and (owner or handled or entrusted)),
          gone as (
            delete from workflow_inbox
            where process_id = ${processId} and user_id in (select user_id from copy) and not (owner or handled or entrusted))
          select user_id from copy`
      : await sql`
          with copy as (
            update workflow_cc set read_at = ${change === "read" ? sql`coalesce(read_at, now())` : null}
            where process_id = ${processId} and ${who} returning user_id, read_at),
          inbox as (
            update workflow_inbox i set read_at = c.read_at from copy c
            where i.process_id = ${processId} and i.user_id = c.user_id)
          select user_id from copy`;
  return rows.length;
}

/** Links a task to the sub-process it started. */
export async function setChildProcess(sql: Queryable, taskId: string, childProcessId: string): Promise<void> {
  await sql`update workflow_tasks set child_process_id = ${childProcessId} where id = ${taskId}`;
}

/** Replaces a process's form data and the thing codes it names, and keeps the change in its journal. */
export async function updateProcessData(
  sql: Queryable,
  processId: string,
  data: Record<string, unknown>,
  things: string[],
): Promise<void> {
  await sql`
    with header as (
      update workflow_processes
      set data = ${sql.json(data as never)}, things = ${things}, updated_at = now(), revision = revision + 1
      where id = ${processId}
      returning id, revision)
    insert into workflow_journal (process_id, revision, kind, body)
    select id, revision, 'data', ${sql.json(data as never)} from header`;
}
