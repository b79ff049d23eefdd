import type { Queryable } from "../runtime/database.ts";
import type { WorkflowApp } from "./app-store.ts";
import { PROCESS_COLUMNS, type ProcessRef, type ProcessRow, whereRef } from "./process-store.ts";

/** The statements behind spec 001's `process` and `task` views (2.8, 3.1, 3.2, 3.5). */

/** A user as the views name them. */
export interface ProfileView {
  id: string;
  name: string;
  account: string;
  email: string | null;
  phone: string | null;
}

/** A workflow_tasks row as the views read it. */
export interface TaskRecord {
  id: string;
  node: string;
  branch: string;
  status: string;
  candidates: string[];
  handlerId: string | null;
  actualUserId: string | null;
  action: string | null;
  remark: string | null;
  review: string | null;
  thing: string | null;
  screen: string | null;
  assignedAt: Date;
  handledAt: Date | null;
  expiresAt: Date | null;
  renderedAt: Date | null;
  childProcessId: string | null;
}

export type AppFields = Pick<WorkflowApp, "id" | "name" | "code" | "tags" | "description">;

export interface ActivityRecord {
  userId: string | null;
  description: string;
  level: string;
  createdAt: Date;
  tags: string;
  /** About a step marked hidden. */
  hidden: boolean;
}

const TASK_COLUMNS = `id, node, branch, status, candidates, handler_id as "handlerId", actual_user_id as "actualUserId", action,
  remark, review, thing, screen, assigned_at as "assignedAt", handled_at as "handledAt", expires_at as "expiresAt",
  rendered_at as "renderedAt", child_process_id as "childProcessId"`;

/** The profiles of the users, by id (an unknown id has none). */
export async function readProfiles(sql: Queryable, ids: string[]): Promise<ProfileView[]> {
  return await sql<ProfileView[]>`
    select id, name, account, email, phone from users where id = any(${ids}::uuid[])`;
}

/** A task with the profiles of its candidates, handler and actual user. */
export async function readTaskWithPeople(
  sql: Queryable,
  taskId: string,
): Promise<(TaskRecord & { people: ProfileView[] }) | undefined> {
  const [task] = await sql<(TaskRecord & { people: ProfileView[] })[]>`
    select ${sql.unsafe(TASK_COLUMNS)},
      (select coalesce(json_agg(json_build_object('id', u.id, 'name', u.name, 'account', u.account,
                                                  'email', u.email, 'phone', u.phone)), '[]')
       from users u where u.id = any(t.candidates || t.handler_id || t.actual_user_id)) as people
    from workflow_tasks t where t.id = ${taskId}`;
  return task;
}

/** What the process view shows of a process besides its row, read in one statement. */
export interface ProcessParts {
  /** Its to-do, done and sub-process tasks, in the order they were assigned. */
  tasks: TaskRecord[];
  /** Its activities, oldest first. */
  activities: ActivityRecord[];
  /** The app of its version, with when the version was created. */
  app: (AppFields & { versionCreatedAt: Date }) | undefined;
  /** The profiles of its owner, actual user, and everyone its tasks and activities name. */
  people: ProfileView[];
}

type Json<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

/**
 * A process of the tenant and mode (by GUID or serial number) with its tasks, activities, app and
 * people: one round trip where five would each wait their turn.
 */
export async function readProcessWithParts(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  ref: ProcessRef,
): Promise<(ProcessParts & { process: ProcessRow }) | undefined> {
  const [row] = await sql<
    (ProcessRow & {
      processTasks: Json<TaskRecord>[];
      activities: Json<ActivityRecord>[];
      app: Json<AppFields & { versionCreatedAt: Date }> | null;
      people: ProfileView[];
    })[]
  >`
    with process as (
      select ${sql.unsafe(PROCESS_COLUMNS)} from workflow_processes
      where ${whereRef(sql, ref)} and tenant_id = ${tenantId} and test = ${test}
    ), task as (
      select ${sql.unsafe(TASK_COLUMNS)} from workflow_tasks
      where process_id = (select id from process) and status in ('todo', 'done', 'subprocess')
    ), activity as (
      select id, user_id as "userId", description, level, created_at as "createdAt", tags, hidden
      from workflow_activities where process_id = (select id from process)
    )
    select process.*,
      (select coalesce(json_agg(task order by "assignedAt", id), '[]') from task) as "processTasks",
      (select coalesce(json_agg(json_build_object('userId', "userId", 'description', description, 'level', level,
                                                  'createdAt', "createdAt", 'tags', tags, 'hidden', hidden) order by id), '[]')
       from activity) as activities,
      (select json_build_object('id', a.id, 'name', a.name, 'code', a.code, 'tags', a.tags,
                                'description', a.description, 'versionCreatedAt', v.created_at)
       from workflow_versions v join workflow_apps a on a.id = v.app_id where v.id = process."versionId") as app,
      (select coalesce(json_agg(json_build_object('id', u.id, 'name', u.name, 'account', u.account,
                                                  'email', u.email, 'phone', u.phone)), '[]')
       from users u where u.id in (
         select process."ownerId" union select process."actualUserId"
         union select unnest(candidates || "handlerId" || "actualUserId") from task
         union select "userId" from activity)) as people
    from process`;
  if (!row) return undefined;
  const { processTasks, activities, app, people, ...process } = row;
  return {
    process,
    tasks: processTasks.map((task) => ({
      ...task,
      assignedAt: new Date(task.assignedAt),
      handledAt: dateOrNull(task.handledAt),
      expiresAt: dateOrNull(task.expiresAt),
      renderedAt: dateOrNull(task.renderedAt),
    })),
    activities: activities.map((activity) => ({ ...activity, createdAt: new Date(activity.createdAt) })),
    app: app ? { ...app, versionCreatedAt: new Date(app.versionCreatedAt) } : undefined,
    people,
  };
}

function dateOrNull(text: string | null): Date | null {
  return text === null ? null : new Date(text);
}

/** The first 50 users who may handle each to-do task (delegates included). */
export async function readTaskExecutors(
  sql: Queryable,
  taskIds: string[],
): Promise<{ taskId: string; users: string[] }[]> {
  return await sql<{ taskId: string; users: string[] }[]>`
    select t.task_id as "taskId", (array_agg(t.user_id))[1:50] as users
    from workflow_todo t where t.task_id = any(${taskIds}::uuid[]) group by t.task_id`;
}

/** The ancestors of a sub-process, nearest first, at most 16. */
export async function readAncestors(
  sql: Queryable,
  parentProcessId: string | null,
): Promise<{ id: string; name: string; entry: number; tags: string }[]> {
  return await sql<{ id: string; name: string; entry: number; tags: string }[]>`
    with recursive up(id, parent, level) as (
      select id, parent_process_id, 0 from workflow_processes where id = ${parentProcessId}
      union all
      select p.id, p.parent_process_id, up.level + 1 from workflow_processes p join up on p.id = up.parent
      where up.level < 15
    )
    select p.id, p.name, p.entry::float8 as entry, p.tags from up join workflow_processes p on p.id = up.id order by up.level`;
}
