import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { type Queryable, type Sql, transaction } from "../runtime/database.ts";
import {
  deletePassedFileTokenFailures,
  fileTokenLockout,
  lockFileTokenAttempts,
  recordFileTokenFailure,
} from "./file-token-failure-store.ts";

/**
 * Guards file-service tokens against guessing, as the login is guarded: wrong tokens are counted
 * per file and client address in Postgres (so the count holds across gateways), and too many
 * within the lockout lock that address out of that file until the lockout has passed.
 */
export class FileTokenGuard {
  constructor(
    private readonly sql: Sql,
    private readonly maxFailures: number,
    private readonly lockoutSeconds: number,
  ) {}

  /**
   * Checks a file token for `address`, or refuses (429) without checking it while the address is
   * locked out of the file: during a lockout the right token is refused too, or it would not stop
   * the guessing. A wrong token counts against the address. Attempts of one address on one file
   * take turns, so concurrent guesses cannot all get in before the count locks them out.
   */
  async attempt(
    fileId: string,
    address: string,
    check: (sql: Queryable) => Promise<boolean>,
  ): Promise<boolean> {
    return transaction(this.sql, async (tx) => {
      await lockFileTokenAttempts(tx, fileId, address);
      const seconds = await fileTokenLockout(tx, fileId, address);
      if (seconds !== undefined) {
        throw new PlatformError(
          ErrorCode.RateLimited,
          `too many wrong tokens for this file from this address; try again in ${seconds} s`,
          { retryAfterSeconds: seconds },
        );
      }
      const valid = await check(tx);
      if (!valid) await this.recordFailure(tx, fileId, address);
      return valid;
    });
  }

  /** One more wrong token; a count whose window has passed starts again. */
  private async recordFailure(sql: Queryable, fileId: string, address: string): Promise<void> {
    // Counts of other addresses whose window and lockout have passed say nothing any more.
    await deletePassedFileTokenFailures(sql, fileId, address, this.lockoutSeconds);
    await recordFileTokenFailure(sql, fileId, address, this.maxFailures, this.lockoutSeconds);
  }
}
