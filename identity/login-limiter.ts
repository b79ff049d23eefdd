import type { Sql } from "../runtime/database.ts";
import {
  clearLoginFailures,
  type LockoutRule,
  lockedSeconds,
  recordLoginFailure,
} from "./login-failure-store.ts";

/**
 * Counts failed attempts per subject in Postgres, so the limit holds across gateway processes:
 * `maxFailures` within `lockoutSeconds` lock the subject out for `lockoutSeconds`.
 */
export class LoginLimiter {
  private readonly rule: LockoutRule;

  constructor(
    private readonly sql: Sql,
    maxFailures: number,
    lockoutSeconds: number,
  ) {
    this.rule = {
      maxFailures,
      firstLockoutSeconds: lockoutSeconds,
      longestLockoutSeconds: lockoutSeconds,
      windowSeconds: lockoutSeconds,
    };
  }

  /** Seconds until the first locked subject may try again, or 0. */
  async lockedFor(subjects: string[]): Promise<number> {
    return await lockedSeconds(this.sql, subjects);
  }

  async recordFailure(subjects: string[]): Promise<void> {
    for (const subject of subjects) await recordLoginFailure(this.sql, subject, this.rule);
  }

  async recordSuccess(subject: string): Promise<void> {
    await clearLoginFailures(this.sql, subject);
  }
}
