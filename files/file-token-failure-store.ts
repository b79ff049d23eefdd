import type { Queryable } from "../runtime/database.ts";

/** First key of the advisory locks that make the attempts on one file from one address take turns. */
const ATTEMPT_LOCK_CLASS = 7_301_002;

/** Holds, until the transaction ends, the lock of the attempts on a file from an address. */
export async function lockFileTokenAttempts(tx: Queryable, fileId: string, address: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(${ATTEMPT_LOCK_CLASS}, hashtext(${`${fileId} ${address}`}))`;
}

/** Seconds until the address may try tokens of the file again, or undefined when it is not locked out. */
export async function fileTokenLockout(
  sql: Queryable,
  fileId: string,
  address: string,
): Promise<number | undefined> {
  const [locked] = await sql<{ seconds: number }[]>`
    select ceil(extract(epoch from locked_until - now()))::int as seconds from file_token_failures
    where file_id = ${fileId} and address = ${address} and locked_until > now()`;
  return locked?.seconds;
}

/** Deletes the file's counts of other addresses whose window and lockout have passed. */
export async function deletePassedFileTokenFailures(
  sql: Queryable,
  fileId: string,
  address: string,
  lockoutSeconds: number,
): Promise<void> {
  await sql`
    delete from file_token_failures where file_id = ${fileId} and address <> ${address}
      and window_started_at < now() - make_interval(secs => ${lockoutSeconds}) and coalesce(locked_until < now(), true)`;
}

/**
 * Counts one more wrong token of the address for the file (a count whose window of `lockoutSeconds`
 * has passed starts again); the `maxFailures`-th locks the address out for `lockoutSeconds`.
 */
export async function recordFileTokenFailure(
  sql: Queryable,
  fileId: string,
  address: string,
  maxFailures: number,
  lockoutSeconds: number,
): Promise<void> {
  const lockout = sql`make_interval(secs => ${lockoutSeconds})`;
  const windowPassed = sql`file_token_failures.window_started_at < now() - ${lockout}`;
  const counted = sql`case when ${windowPassed} then 1 else file_token_failures.failures + 1 end`;
  await sql`
    insert into file_token_failures (file_id, address, failures, window_started_at, locked_until)
    select ${fileId}, ${address}, 1, now(), case when 1 >= ${maxFailures} then now() + ${lockout} end
    where exists (select from files where id = ${fileId})
    on conflict (file_id, address) do update set
      failures = ${counted},
      window_started_at = case when ${windowPassed} then now() else file_token_failures.window_started_at end,
      locked_until = case when ${counted} >= ${maxFailures} then now() + ${lockout} end`;
}
