import type { Sql } from "../../runtime/database.ts";

/**
 * Counts failed password attempts per subject (an account, a client) in Postgres, so the limit
 * holds across gateway processes; too many failures in a window lock the subject out for a while.
 */
export class LoginLimiter {
  constructor(
    private readonly sql: Sql,
    private readonly maxFailures: number,
    private readonly lockoutSeconds: number,
  ) {}

  /** Seconds until the first locked subject may try again, or 0. */
  async lockedFor(subjects: string[]): Promise<number> {
    const [row] = await this.sql<{ seconds: number | null }[]>`
      select ceil(extract(epoch from max(locked_until) - now()))::int as seconds
      from login_failures where subject = any(${subjects}) and locked_until > now()`;
    return row?.seconds ?? 0;
  }

  async recordFailure(subjects: string[]): Promise<void> {
    for (const subject of subjects) {
      await this.sql`
        insert into login_failures (subject, failures, window_started_at, locked_until)
        values (${subject}, 1, now(),
                case when 1 >= ${this.maxFailures} then now() + make_interval(secs => ${this.lockoutSeconds}) end)
        on conflict (subject) do update set
          failures = case when login_failures.window_started_at < now() - make_interval(secs => ${this.lockoutSeconds})
                          then 1 else login_failures.failures + 1 end,
          window_started_at = case when login_failures.window_started_at < now() - make_interval(secs => ${this.lockoutSeconds})
                                   then now() else login_failures.window_started_at end,
          locked_until = case when login_failures.failures + 1 >= ${this.maxFailures}
                               and login_failures.window_started_at >= now() - make_interval(secs => ${this.lockoutSeconds})
                              then now() + make_interval(secs => ${this.lockoutSeconds}) else login_failures.locked_until end`;
    }
  }

  async recordSuccess(subject: string): Promise<void> {
    await this.sql`delete from login_failures where subject = ${subject}`;
  }
}
