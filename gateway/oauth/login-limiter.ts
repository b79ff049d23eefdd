import type { Sql } from "../../runtime/database.ts";
import { clearLoginFailures, lockedSeconds, recordLoginFailure } from "../../runtime/store/login-failures.ts";

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
    return await lockedSeconds(this.sql, subjects);
  }

  async recordFailure(subjects: string[]): Promise<void> {
    for (const subject of subjects) {
      await recordLoginFailure(this.sql, subject, this.maxFailures, this.lockoutSeconds);
    }
  }

  async recordSuccess(subject: string): Promise<void> {
    await clearLoginFailures(this.sql, subject);
  }
}
