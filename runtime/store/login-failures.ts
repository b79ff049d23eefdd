import type { Queryable } from "../database.ts";

/** Seconds until the first locked subject may try again, or 0. */
export async function lockedSeconds(sql: Queryable, subjects: string[]): Promise<number> {
  const [row] = await sql<{ seconds: number | null }[]>`
    select ceil(extract(epoch from max(locked_until) - now()))::int as seconds
    from login_failures where subject = any(${subjects}) and locked_until > now()`;
  return row?.seconds ?? 0;
}

/**
 * Counts a failed attempt of the subject in its window (a window older than `lockoutSeconds`
 * starts again); the `maxFailures`-th failure locks the subject out for `lockoutSeconds`.
 */
export async function recordLoginFailure(
  sql: Queryable,
  subject: string,
  maxFailures: number,
  lockoutSeconds: number,
): Promise<void> {
  await sql`
    insert into login_failures (subject, failures, window_started_at, locked_until)
    values (${subject}, 1, now(),
            case when 1 >= ${maxFailures} then now() + make_interval(secs => ${lockoutSeconds}) end)
    on conflict (subject) do update set
      failures = case when login_failures.window_started_at < now() - make_interval(secs => ${lockoutSeconds})
                      then 1 else login_failures.failures + 1 end,
      window_started_at = case when login_failures.window_started_at < now() - make_interval(secs => ${lockoutSeconds})
                               then now() else login_failures.window_started_at end,
      locked_until = case when login_failures.failures + 1 >= ${maxFailures}
                           and login_failures.window_started_at >= now() - make_interval(secs => ${lockoutSeconds})
                          then now() + make_interval(secs => ${lockoutSeconds}) else login_failures.locked_until end`;
}

/** Forgets the subject's failures. */
export async function clearLoginFailures(sql: Queryable, subject: string): Promise<void> {
  await sql`delete from login_failures where subject = ${subject}`;
}
