import { MAX_ACCESS_TOKEN_TTL_SECONDS } from "../contracts/scopes.ts";
import type { ControlChange, ControlChanges } from "../runtime/control-changes.ts";
import type { Sql } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import { disabledApplicationIds } from "./application-store.ts";
import { deleteExpiredFamilyAccessTokens } from "./family-access-token-store.ts";
import { deleteExpiredRevokedAccessTokens, liveRevokedAccessTokens } from "./revoked-access-token-store.ts";
import type { TokenRefusal } from "./token-refusals.ts";
import { recentlyDisabledUserIds } from "./user-store.ts";

/** Read again this often, in case a change event was lost with the process that made the change. */
const RESYNC_INTERVAL_MS = 60_000;

/**
 * The access tokens a gateway refuses although their signature and expiry are good: revoked ones
 * (by jti, until they expire), and those of disabled applications and accounts. Held in memory and
 * kept current by change events, so checking a token costs three lookups and no database round trip.
 */
export class TokenDenylist {
  private revoked = new Map<string, number>();
  private disabledApplications = new Set<string>();
  private disabledUsers = new Set<string>();
  /** While a resync reads, the changes heard meanwhile, applied again over what it read. */
  private heardDuringResync: ControlChange[] | undefined;
  private resyncAgain = false;

  /** The denylist, empty until `read`: made before the database serves, read once it does. */
  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
  ) {}

  /** Reads the denylist, then keeps it current: each change announced, and a resync now and then. */
  async read(changes: ControlChanges): Promise<void> {
    await changes.subscribe({
      change: (change) => this.apply(change),
      resync: () => this.resyncInBackground(),
    });
    await this.resync();
    setInterval(() => this.resyncInBackground(), RESYNC_INTERVAL_MS).unref();
  }

  /** Why a token whose signature and expiry are good is refused, or undefined when it is not. */
  refusal(token: { jti: string; clientId: string; userId: string | undefined }): TokenRefusal | undefined {
    if (this.revoked.has(token.jti)) return "revoked";
    if (this.disabledApplications.has(token.clientId)) return "application-disabled";
    if (token.userId !== undefined && this.disabledUsers.has(token.userId)) return "account-disabled";
    return undefined;
  }

  private apply(change: ControlChange): void {
    this.heardDuringResync?.push(change);
    switch (change.kind) {
      case "access-token-revoked":
        this.revoked.set(change.jti, change.expiresAt);
        return;
      case "user":
        if (change.disabled) this.disabledUsers.add(change.id);
        else this.disabledUsers.delete(change.id);
        return;
      case "application":
        if (change.disabled === true) this.disabledApplications.add(change.id);
        else if (change.disabled === false) this.disabledApplications.delete(change.id);
        return;
      case "configuration":
        this.resyncInBackground();
        return;
    }
  }

  private resyncInBackground(): void {
    this.resync().catch((error: unknown) => this.log.warn({ err: error }, "token denylist not reloaded"));
  }

  private async resync(): Promise<void> {
    if (this.heardDuringResync) {
      // What the running read returns may predate the change that asked for this one.
      this.resyncAgain = true;
      return;
    }
    this.heardDuringResync = [];
    try {
      do {
        this.resyncAgain = false;
        await deleteExpiredRevokedAccessTokens(this.sql);
        await deleteExpiredFamilyAccessTokens(this.sql);
        const [revoked, applications, users] = await Promise.all([
          liveRevokedAccessTokens(this.sql),
          disabledApplicationIds(this.sql),
          recentlyDisabledUserIds(this.sql, MAX_ACCESS_TOKEN_TTL_SECONDS),
        ]);
        this.revoked = new Map(revoked.map((token) => [token.jti, token.expiresAt]));
        this.disabledApplications = new Set(applications);
        this.disabledUsers = new Set(users);
        const heard = this.heardDuringResync.splice(0);
        for (const change of heard) if (change.kind !== "configuration") this.apply(change);
      } while (this.resyncAgain);
    } finally {
      this.heardDuringResync = undefined;
    }
  }
}
