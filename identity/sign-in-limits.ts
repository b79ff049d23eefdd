import type { Sql } from "../runtime/database.ts";
import {
  clearLoginFailures,
  countLoginAttempt,
  type LockoutRule,
  lockedSubjects,
  recordLoginFailure,
} from "./login-failure-store.ts";

/** An account's failures are counted for a day from the first, unless its password is given before. */
const ACCOUNT_WINDOW_SECONDS = 86_400;
/**
 * An address's failures are counted for an hour from the first, and a correct password does not
 * clear them (one account of one's own would otherwise reset the count between guesses at others).
 */
const ADDRESS_WINDOW_SECONDS = 3600;

/** A password sign-in: the account of a tenant (none when no tenant has it), from a client address. */
export interface SignInAttempt {
  tenantId: string | undefined;
  account: string;
  address: string;
}

/** Why an attempt is refused before its password is checked, and for how many more seconds. */
export interface SignInRefusal {
  lockedOut: "account" | "address";
  seconds: number;
}

export interface SignInLimitSettings {
  maxFailures: number;
  firstLockoutSeconds: number;
  longestLockoutSeconds: number;
  addressMaxFailures: number;
}

/**
 * Failed password sign-ins slow down per (tenant, account) and per client address, never per
 * application: nobody locks out accounts they do not guess at, and an address trying many
 * accounts is stopped at a higher threshold. Each lockout past the threshold lasts twice as long as
 * the one before, up to the longest. Counted in Postgres, so the limits hold across gateways.
 */
export class SignInLimits {
  private readonly account: LockoutRule;
  private readonly address: LockoutRule;

  constructor(
    private readonly sql: Sql,
    settings: SignInLimitSettings,
  ) {
    const lockouts = {
      firstLockoutSeconds: settings.firstLockoutSeconds,
      longestLockoutSeconds: settings.longestLockoutSeconds,
    };
    this.account = { maxFailures: settings.maxFailures, windowSeconds: ACCOUNT_WINDOW_SECONDS, ...lockouts };
    this.address = {
      maxFailures: settings.addressMaxFailures,
      windowSeconds: ADDRESS_WINDOW_SECONDS,
      ...lockouts,
    };
  }

  /**
   * Undefined when the attempt may check its password, and is then counted against its account
   * already (a correct password clears that); otherwise the lockout that refuses it.
   */
  async begin(attempt: SignInAttempt): Promise<SignInRefusal | undefined> {
    const subjects = [accountSubject(attempt), addressSubject(attempt)];
    let locked = await lockedSubjects(this.sql, subjects);
    if (locked.length === 0) {
      if (await countLoginAttempt(this.sql, subjects[0]!, this.account)) return undefined;
      // Another attempt locked the account in the meantime.
      locked = await lockedSubjects(this.sql, subjects);
    }
    const longest = locked.reduce((a, b) => (b.seconds > a.seconds ? b : a), {
      subject: subjects[0]!,
      seconds: 1,
    });
    return { lockedOut: longest.subject === subjects[1] ? "address" : "account", seconds: longest.seconds };
  }

  /** The password was wrong (or the account unknown): the address's count grows too. */
  async failed(attempt: SignInAttempt): Promise<void> {
    await recordLoginFailure(this.sql, addressSubject(attempt), this.address);
  }

  /** The password was right: the account's count starts again, the address's stays. */
  async succeeded(attempt: SignInAttempt): Promise<void> {
    await clearLoginFailures(this.sql, accountSubject(attempt));
  }
}

/** Accounts are told apart by tenant; unknown ones are counted too, so a lockout says nothing of existence. */
function accountSubject(attempt: SignInAttempt): string {
  return `account:${attempt.tenantId ?? "-"}/${attempt.account.toLowerCase()}`;
}

function addressSubject(attempt: SignInAttempt): string {
  return `address:${attempt.address}`;
}
