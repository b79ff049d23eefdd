import type { Queryable } from "../runtime/database.ts";

/** A task link as its verifier reads it: the one task it opens, for whom, until when. */
export interface TaskLinkRow {
  taskId: string;
  processId: string;
  processEntry: number;
  tenantId: string;
  test: boolean;
  userId: string;
  applicationId: string;
  issuedAt: number;
  expiresAt: number;
}

/** A link to make: the task, its process, tenant and data mode, its assignee, the application asking, how long it lasts. */
export interface NewTaskLink {
  taskId: string;
  processId: string;
  tenantId: string;
  test: boolean;
  userId: string;
  applicationId: string;
  ttlSeconds: number;
}

/**
 * Keeps a link to `taskId` for its assignee when the assignee is a quick user (an account without a
 * password, so without any other way to sign in), and answers whether it was kept. Up to a hundred
 * expired links go in the same statement, none that another start is removing.
 */
export async function insertQuickUserTaskLink(
  sql: Queryable,
  link: NewTaskLink & { tokenHash: Buffer },
): Promise<boolean> {
  const kept = await sql`
    with expired as (
      delete from workflow_task_links where token_hash in (
        select token_hash from workflow_task_links where expires_at <= now() limit 100 for update skip locked))
    insert into workflow_task_links
      (token_hash, task_id, process_id, tenant_id, test, user_id, application_id, expires_at)
    select ${link.tokenHash}, ${link.taskId}, ${link.processId}, ${link.tenantId}, ${link.test}, id,
           ${link.applicationId}, now() + make_interval(secs => ${link.ttlSeconds})
    from users where id = ${link.userId} and password_hash is null
    returning 1`;
  return kept.length === 1;
}

/** The link whose token hashes to `tokenHash`, unless it has expired or its user is disabled. */
export async function liveTaskLink(sql: Queryable, tokenHash: Buffer): Promise<TaskLinkRow | undefined> {
  const [row] = await sql<TaskLinkRow[]>`
    select link.task_id as "taskId", link.process_id as "processId", process.entry::float8 as "processEntry",
           link.tenant_id as "tenantId", link.test, link.user_id as "userId",
           link.application_id as "applicationId",
           extract(epoch from link.expires_at)::int as "expiresAt",
           extract(epoch from link.created_at)::int as "issuedAt"
    from workflow_task_links link
    join workflow_processes process on process.id = link.process_id
    join users on users.id = link.user_id
    where link.token_hash = ${tokenHash} and link.expires_at > now() and not users.disabled`;
  return row;
}
