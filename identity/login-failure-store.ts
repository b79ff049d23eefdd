import type postgres from "postgres";
import type { Queryable } from "../runtime/database.ts";

/**
 * How failed sign-ins of a subject (an account, a client address) lock it out: failures are counted
 * in a window of `windowSeconds` from the first; the `maxFailures`-th locks the subject out for
 * `firstLockoutSeconds`, each one after it for twice as long as the one before, at most
 * `longestLockoutSeconds`.
 */
export interface LockoutRule {
  maxFailures: number;
  firstLockoutSeconds: number;
  longestLockoutSeconds: number;
  windowSeconds: number;
}

/** Seconds until the first locked subject may try again, or 0. */
export async function lockedSeconds(sql: Queryable, subjects: string[]): Promise<number> {
  const [row] = await sql<{ seconds: number | null }[]>`
    select ceil(extract(epoch from max(locked_until) - now()))::int as seconds
    from login_failures where subject = any(${subjects}) and locked_until > now()`;
  return row?.seconds ?? 0;
}

/** The locked subjects among `subjects`, each with the seconds until it may try again. */
export async function lockedSubjects(
  sql: Queryable,
  subjects: string[],
): Promise<{ subject: string; seconds: number }[]> {
  return sql<{ subject: string; seconds: number }[]>`
    select subject, ceil(extract(epoch from locked_until - now()))::int as seconds
    from login_failures where subject = any(${subjects}) and locked_until > now()`;
}

/**
 * Counts one more failure of the subject under `rule` (locked or not). A count whose window has
 * passed starts again.
 */
export async function recordLoginFailure(sql: Queryable, subject: string, rule: LockoutRule): Promise<void> {
  await upsertFailure(sql, subject, rule, false);
}

/**
 * Counts an attempt of the subject under `rule` before its password is checked, unless the subject
 * is locked out: then nothing is counted and false returned. Counting first, in one statement, lets
 * no two attempts slip past a lockout together; a correct password clears the count afterwards.
 */
export async function countLoginAttempt(
  sql: Queryable,
  subject: string,
  rule: LockoutRule,
): Promise<boolean> {
  return await upsertFailure(sql, subject, rule, true);
}

async function upsertFailure(
  sql: Queryable,
  subject: string,
  rule: LockoutRule,
  unlessLocked: boolean,
): Promise<boolean> {
  const windowPassed = sql`login_failures.window_started_at <= now() - make_interval(secs => ${rule.windowSeconds})`;
  const counted = sql`case when ${windowPassed} then 1 else login_failures.failures + 1 end`;
  // The exponent stops at 30: every longest lockout allowed is reached long before.
  const lockout = (failures: postgres.Fragment) => sql`
    case when ${failures} >= ${rule.maxFailures} then now() + make_interval(secs => least(
      ${rule.firstLockoutSeconds}::float8 * power(2, least(${failures} - ${rule.maxFailures}, 30)),
      ${rule.longestLockoutSeconds}::float8)) end`;
  const rows = await sql`
    insert into login_failures (subject, failures, window_started_at, locked_until)
    values (${subject}, 1, now(), ${lockout(sql`1`)})
    on conflict (subject) do update set
      failures = ${counted},
      window_started_at = case when ${windowPassed} then now() else login_failures.window_started_at end,
      locked_until = greatest(login_failures.locked_until, ${lockout(counted)})
    ${unlessLocked ? sql`where coalesce(login_failures.locked_until <= now(), true)` : sql``}
    returning subject`;
  return rows.length > 0;
}

/** Forgets the subject's failures. */
export async function clearLoginFailures(sql: Queryable, subject: string): Promise<void> {
  await sql`delete from login_failures where subject = ${subject}`;
}
