import type postgres from "postgres";
import { joinFragments, type Queryable, sendCommitBehind } from "../runtime/database.ts";
import { startAllowed } from "./access-grant-store.ts";
import type { ActivityRecord, EngineEvent, EngineResult } from "./engine/engine-result.ts";
import { delegatedInboxCte, inboxCtes, statesOf } from "./inbox-writes.ts";
import type { DecidedCommand } from "./process-journal.ts";
import type { TaskState } from "./process-state.ts";
import { PROCESS_COLUMNS, type ProcessRow } from "./process-store.ts";
import type { ProfileView } from "./process-view-store.ts";

/**
 * A command's outcome written as one statement: the process header (inserted or updated) with the
 * tasks, branches, to-do rows, copies, activities and outbox events as data-modifying CTEs around
 * it, and the inbox rows of the process's users (inbox-writes.ts). Postgres runs them all on one
 * snapshot, so a to-do row that is taken away and written again in the same command (a task
 * withdrawn or reassigned) is written by a second statement, with the delegates it reaches.
 */

/** Which delegations reach a to-do task: those of its app in force now. */
export interface DelegationScope {
  appId: string;
  /** Delegations in force at this time count. */
  now: Date;
}

/** A process the command starts: the row's fields a start decides; the rest are the table's defaults. */
export type NewProcess = Pick<
  ProcessRow,
  | "id"
  | "tenantId"
  | "test"
  | "appId"
  | "versionId"
  | "name"
  | "tags"
  | "ownerId"
  | "actualUserId"
  | "businessId"
  | "things"
  | "parentProcessId"
  | "parentTaskId"
  | "depth"
>;

/** Where a command's outcome goes: the process it ran on, or a new one (3.2) written with it. */
export type ResultTarget = { process: ProcessRow } | { newProcess: NewProcess };

type Fragment = postgres.Fragment;
type ProcessKeys = Pick<ProcessRow, "id" | "tenantId" | "test" | "appId" | "ownerId">;

const toIso = (time: number | null) => (time === null ? null : new Date(time).toISOString());

function taskRecord(task: TaskState) {
  return {
    id: task.id,
    node: task.node,
    branch: task.branch,
    status: task.status,
    candidates: task.candidates,
    group_id: task.group,
    turn: task.turn,
    handler_id: task.handler,
    actual_user_id: task.actualUser,
    action: task.action,
    remark: task.remark,
    thing: task.thing,
    assigned_at: toIso(task.assignedAt),
    handled_at: toIso(task.handledAt),
    expires_at: toIso(task.expiresAt),
    trail: task.trail,
    child_process_id: task.child,
  };
}

/** The to-do tasks whose to-do rows the command takes away and writes again. */
function replacedTodo(result: EngineResult): string[] {
  return result.tasksChanged.filter((task) => task.status === "todo").map((task) => task.id);
}

function changesSuspension(target: ResultTarget, result: EngineResult): boolean {
  return (
    "process" in target && (target.process.status === "suspended") !== (result.state.status === "suspended")
  );
}

/**
 * Whether `writeResult` writes the outcome in one statement, which then commits on its own outside
 * a transaction: not when to-do rows are written again or the process is suspended or resumed.
 */
export function writesInOneStatement(target: ResultTarget, result: EngineResult): boolean {
  return replacedTodo(result).length === 0 && !changesSuspension(target, result);
}

/** Whether a write failed because the process changed after the command read it (a serialization failure). */
export function isStaleRevision(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "40001";
}

/** Whether a start failed because its user may not start the app (not one of its starters). */
export function isNotAStarter(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "WF403";
}

/** The process as written, and the profiles of the people the caller asked to show. */
export interface Written {
  process: ProcessRow;
  people: Map<string, ProfileView>;
}

export async function writeResult(
  sql: Queryable,
  target: ResultTarget,
  result: EngineResult,
  options: {
    delegation: DelegationScope;
    thingSteps: ReadonlySet<string>;
    /** Users whose profiles the answer shows (the task it returns names them). */
    people?: readonly (string | null)[];
    /** The write ends its transaction: the commit is sent with it (see `sendCommitBehind`). */
    commits?: boolean;
    /** The command as the process's journal keeps it. */
    decided: DecidedCommand;
    /** A new process is written only if this user may start its app (see `isNotAStarter`). */
    starter?: string | undefined;
  },
): Promise<Written> {
  const { state } = result;
  const now = new Date();
  const process: ProcessKeys = "newProcess" in target ? target.newProcess : target.process;
  const ctes: Fragment[] = [headerCte(sql, target, state, now)];
  if (result.tasksCreated.length > 0) {
    ctes.push(sql`new_task as (
      insert into workflow_tasks (id, process_id, node, branch, status, candidates, group_id, turn, handler_id,
                                  actual_user_id, action, remark, thing, assigned_at, handled_at, expires_at, trail,
                                  child_process_id)
      select r.id, ${process.id}, r.node, r.branch, r.status, r.candidates, r.group_id, r.turn, r.handler_id,
             r.actual_user_id, r.action, r.remark, r.thing, r.assigned_at, r.handled_at, r.expires_at, r.trail,
             r.child_process_id
      from jsonb_to_recordset(${sql.json(result.tasksCreated.map(taskRecord) as never)}) as r(
        id uuid, node text, branch text, status text, candidates uuid[], group_id uuid, turn int, handler_id uuid,
        actual_user_id uuid, action text, remark text, thing text, assigned_at timestamptz, handled_at timestamptz,
        expires_at timestamptz, trail jsonb, child_process_id uuid))`);
  }
  if (result.tasksChanged.length > 0) {
    ctes.push(sql`changed_task as (
      update workflow_tasks t set status = r.status, candidates = r.candidates, handler_id = r.handler_id,
        actual_user_id = r.actual_user_id, action = r.action, remark = r.remark, thing = r.thing,
        assigned_at = r.assigned_at, handled_at = r.handled_at, trail = r.trail,
        child_process_id = r.child_process_id, version = t.version + 1
      from jsonb_to_recordset(${sql.json(result.tasksChanged.map(taskRecord) as never)}) as r(
        id uuid, status text, candidates uuid[], handler_id uuid, actual_user_id uuid, action text, remark text,
        thing text, assigned_at timestamptz, handled_at timestamptz, trail jsonb, child_process_id uuid)
      where t.id = r.id and t.process_id = ${process.id})`);
  }
  const branches = [...result.branchesCreated, ...result.branchesChanged];
  if (branches.length > 0) {
    ctes.push(sql`branch as (
      insert into workflow_branches (process_id, path, parent, split, fork, item, status)
      select ${process.id}, b.path, b.parent, b.split, b.fork, b.item, b.status
      from jsonb_to_recordset(${sql.json(branches as never)}) as b(path text, parent text, split text, fork text, item int, status text)
      on conflict (process_id, path) do update set status = excluded.status)`);
  }
  const copies = result.events.flatMap((event) =>
    event.type === "cc" ? event.users.map((user) => ({ user, node: event.node })) : [],
  );
  if (copies.length > 0) {
    ctes.push(sql`copy as (
      insert into workflow_cc (process_id, user_id, tenant_id, test, node, created_at, updated_at)
      select ${process.id}, c.user, ${process.tenantId}, ${process.test}, c.node, ${now}, ${now}
      from jsonb_to_recordset(${sql.json(copies as never)}) as c("user" uuid, node text)
      on conflict (process_id, user_id) do update set node = excluded.node, updated_at = excluded.updated_at, read_at = null)`);
  }
  ctes.push(sql`journal_entry as (
    insert into workflow_journal (process_id, revision, kind, body)
    select id, revision, 'command', ${sql.json(options.decided as never)} from header)`);
  const entry = sql`(select entry from header)`;
  ctes.push(...journal(sql, process, entry, result.activities, result.events));

  // To-do rows: those of every task the command touched go; those of its to-do tasks come back.
  const touched = [...result.tasksCreated, ...result.tasksChanged];
  const gone = touched.filter((task) => task.status !== "todo").map((task) => task.id);
  const replaced = replacedTodo(result);
  if (gone.length + replaced.length > 0) {
    ctes.push(
      sql`gone_todo as (delete from workflow_todo where task_id = any(${[...gone, ...replaced]}::uuid[]))`,
    );
  }
  const todo = todoInserts(
    sql,
    process,
    touched,
    {
      suspended: result.state.status === "suspended",
      archived: "process" in target && target.process.archived,
    },
    options,
  );
  const suspendedChanged = changesSuspension(target, result);
  const later: Fragment[] = [];
  if (replaced.length > 0 || suspendedChanged) later.push(...todo);
  else ctes.push(...todo);
  const newOwner = "newProcess" in target ? target.newProcess.ownerId : undefined;
  ctes.push(
    ...inboxCtes(sql, process.id, result, { now, newOwner, newTodo: todo.length > 0 && later.length === 0 }),
  );
  if (later.length > 0) later.push(delegatedInboxCte(sql, process.id, statesOf(result)));

  const people = [...new Set(options.people ?? [])].filter((id): id is string => id !== null);
  // A header that updated nothing fails the statement, so that none of its other writes stay; so
  // does a start by someone the app's starters do not include.
  const starter = options.starter
    ? sql`case when not ${startAllowed(sql, process.tenantId, process.test, process.appId, options.starter)}
               then workflow_not_a_starter() end`
    : sql`null`;
  const main = sql<(ProcessRow & { people: ProfileView[]; stale: null; refused: null })[]>`
      with recursive ${joinFragments(sql, ctes, ", ")}
      select ${sql.unsafe(PROCESS_COLUMNS)},
        case when header.id is null then workflow_stale_revision() end as stale, ${starter} as refused,
        (select coalesce(json_agg(json_build_object('id', u.id, 'name', u.name, 'account', u.account,
                                                    'email', u.email, 'phone', u.phone)), '[]')
         from users u where u.id = any(${people}::uuid[])) as people
      from (select) as one left join header on true`;
  const statements: postgres.PendingQuery<postgres.Row[]>[] = [];
  if (later.length > 0) statements.push(sql`with recursive ${joinFragments(sql, later, ", ")} select`);
  if (suspendedChanged) {
    statements.push(
      sql`update workflow_todo set suspended = ${state.status === "suspended"} where process_id = ${process.id}`,
    );
  }
  // Sent now, in order, so that a commit sent behind them follows them on the connection.
  const sent = Promise.all([main.execute(), ...statements.map((statement) => statement.execute())]);
  if (options.commits) sendCommitBehind(sql);
  const [[row]] = await sent;
  const { people: profiles, stale: _, refused: __, ...written } = row!;
  return { process: written, people: new Map(profiles.map((profile) => [profile.id, profile])) };
}

/**
 * The `header` CTE: the process inserted, or updated if its revision is still the one the command
 * read (when it is not, the statement fails: see `isStaleRevision`), returned whole.
 */
function headerCte(sql: Queryable, target: ResultTarget, state: EngineResult["state"], now: Date): Fragment {
  const milestone = state.milestone ? sql.json(state.milestone as never) : null;
  if ("newProcess" in target) {
    const process = target.newProcess;
    return sql`header as (
      insert into workflow_processes (id, tenant_id, test, app_id, version_id, name, tags, owner_id, actual_user_id,
                                      status, milestone, data, business_id, things, parent_process_id, parent_task_id,
                                      depth, created_at, updated_at)
      values (${process.id}, ${process.tenantId}, ${process.test}, ${process.appId}, ${process.versionId}, ${process.name},
              ${process.tags}, ${process.ownerId}, ${process.actualUserId}, ${state.status}, ${milestone},
              ${sql.json(state.data as never)}, ${process.businessId}, ${process.things}, ${process.parentProcessId},
              ${process.parentTaskId}, ${process.depth}, ${now}, ${now})
      returning *)`;
  }
  const ended = state.status === "done" || state.status === "killed";
  return sql`header as (
    update workflow_processes set status = ${state.status}, milestone = ${milestone},
      data = ${sql.json(state.data as never)}, updated_at = ${now},
      ended_at = case when ${ended} then coalesce(ended_at, ${now}) end, revision = revision + 1
    where id = ${target.process.id} and revision = ${target.process.revision}
    returning *)`;
}

/**
 * The to-do rows of the touched tasks that are to-do: one per candidate, and one per user a
 * candidate entrusted the app's tasks to (chains followed at most 8 deep, cycles ignored), which
 * names that candidate in `entrusted_by`.
 */
function todoInserts(
  sql: Queryable,
  process: ProcessKeys,
  touched: TaskState[],
  /** The process's flags that keep its to-do rows out of the lists, which new rows carry too. */
  hidden: { suspended: boolean; archived: boolean },
  options: { delegation: DelegationScope; thingSteps: ReadonlySet<string> },
): Fragment[] {
  const candidates = touched
    .filter((task) => task.status === "todo")
    .flatMap((task) =>
      task.candidates.map((user, ordinal) => ({
        user_id: user,
        task_id: task.id,
        ordinal,
        thing: options.thingSteps.has(task.node),
        assigned_at: toIso(task.assignedAt),
      })),
    );
  if (candidates.length === 0) return [];
  const { appId, now } = options.delegation;
  return [
    sql`candidate as (
      select * from jsonb_to_recordset(${sql.json(candidates as never)})
        as r(user_id uuid, task_id uuid, ordinal int, thing boolean, assigned_at timestamptz))`,
    sql`reached (origin, user_id, task_id, ordinal, thing, assigned_at, depth, path) as (
      select user_id, user_id, task_id, ordinal, thing, assigned_at, 0, array[user_id] from candidate
      union all
      select r.origin, e.entrustee_id, r.task_id, r.ordinal, r.thing, r.assigned_at, r.depth + 1, r.path || e.entrustee_id
      from reached r join workflow_entrustments e on e.entruster_id = r.user_id
      where r.depth < 8 and e.tenant_id = ${process.tenantId} and e.test = ${process.test} and (e.app_id is null or e.app_id = ${appId})
        and e.valid_from <= ${now} and e.valid_to > ${now} and e.entrustee_id <> all(r.path))`,
    sql`new_todo as (
      insert into workflow_todo (user_id, task_id, process_id, tenant_id, test, entrusted_by, sep, thing, suspended, archived, assigned_at)
      select distinct on (user_id, task_id) user_id, task_id, ${process.id}, ${process.tenantId}, ${process.test},
             case when depth = 0 then null else origin end, user_id <> ${process.ownerId}, thing, ${hidden.suspended},
             ${hidden.archived}, assigned_at
      from reached
      order by user_id, task_id, depth, ordinal
      on conflict (user_id, task_id) do nothing
      returning user_id, entrusted_by)`,
  ];
}

/** The activities and outbox events of a change, as CTEs; `entry` is the process's serial number. */
export function journal(
  sql: Queryable,
  process: Pick<ProcessRow, "id" | "tenantId" | "test" | "appId">,
  entry: Fragment,
  activities: readonly ActivityRecord[],
  events: readonly EngineEvent[],
): Fragment[] {
  const ctes: Fragment[] = [];
  if (activities.length > 0) {
    ctes.push(sql`activity as (
      insert into workflow_activities (tenant_id, test, process_id, entry, app_id, category, level, tags, description, user_id, task_id, hidden)
      select ${process.tenantId}, ${process.test}, ${process.id}, ${entry}, ${process.appId}, a.category, a.level, a.tags,
             a.description, a."user", a.task, coalesce(a.hidden, false)
      from jsonb_to_recordset(${sql.json(activities as never)}) as a(category text, level text, tags text, description text, "user" uuid, task uuid, hidden boolean))`);
  }
  if (events.length > 0) {
    const rows = events.map((event) => ({
      type: event.type,
      task: "task" in event ? event.task : null,
      users: "users" in event ? event.users : "user" in event && event.user ? [event.user] : [],
      payload: event,
    }));
    ctes.push(sql`event as (
      insert into workflow_events (tenant_id, test, process_id, type, task_id, users, payload)
      select ${process.tenantId}, ${process.test}, ${process.id}, e.type, e.task, e.users, e.payload
      from jsonb_to_recordset(${sql.json(rows as never)}) as e(type text, task uuid, users uuid[], payload jsonb))`);
  }
  return ctes;
}

/** Records an activity outside an engine command (data changes, reminders, administration), with its event. */
export async function recordActivity(
  sql: Queryable,
  process: Pick<ProcessRow, "id" | "tenantId" | "test" | "appId">,
  activity: ActivityRecord,
  event?: EngineEvent,
): Promise<void> {
  const entry = sql`(select entry from workflow_processes where id = ${process.id})`;
  const ctes = journal(sql, process, entry, [activity], event ? [event] : []);
  await sql`with ${joinFragments(sql, ctes, ", ")} select`;
}

/** Records activities of several processes in one statement, none with an event. */
export async function recordActivities(
  sql: Queryable,
  entries: readonly { processId: string; activity: ActivityRecord }[],
): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map(({ processId, activity }) => ({ process: processId, ...activity }));
  await sql`
    insert into workflow_activities (tenant_id, test, process_id, entry, app_id, category, level, tags, description, user_id, task_id, hidden)
    select p.tenant_id, p.test, p.id, p.entry, p.app_id, a.category, a.level, a.tags, a.description, a."user", a.task, coalesce(a.hidden, false)
    from jsonb_to_recordset(${sql.json(rows as never)})
      as a(process uuid, category text, level text, tags text, description text, "user" uuid, task uuid, hidden boolean)
    join workflow_processes p on p.id = a.process`;
}
