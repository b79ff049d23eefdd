import { Grant } from "../contracts/scopes.ts";
import type { AccessClaims } from "../identity/access-tokens.ts";
import type { TokenDenylist } from "../identity/token-denylist.ts";
import type { Queryable, Sql } from "../runtime/database.ts";
import { hashSecret, newSecret } from "../runtime/secrets.ts";
import { insertQuickUserTaskLink, liveTaskLink, type NewTaskLink } from "./task-link-store.ts";

/** What sets a link token apart from a JWT, so other tokens never cost a database lookup. */
const TASK_LINK_PREFIX = "tl_";

/** Whether a token has a task link's form (and is no access token), without looking it up. */
export function isTaskLink(token: string): boolean {
  return token.startsWith(TASK_LINK_PREFIX);
}

/** A verified task link: the one task it opens, and claims as a user token of its assignee would carry. */
export interface TaskLink {
  taskId: string;
  processId: string;
  processEntry: number;
  test: boolean;
  claims: AccessClaims;
}

/**
 * Spec 001 3.2's secure URLs. A link opens one task (reading its process, handling it) for a quick
 * user, an account that cannot sign in, until `secureURIExpire` seconds have passed. It is an opaque
 * token kept as its hash, so it may outlive signing keys, and it is refused with its application or
 * its user disabled, as their access tokens are.
 */
export class TaskLinks {
  constructor(
    private readonly sql: Sql,
    private readonly denylist: TokenDenylist,
  ) {}

  /**
   * A link token to `taskId` for `userId`, when that user is a quick user; undefined for an account
   * that signs in, which opens its tasks with its own tokens. Written in the caller's transaction.
   */
  async issue(tx: Queryable, link: NewTaskLink): Promise<string | undefined> {
    const token = `${TASK_LINK_PREFIX}${newSecret()}`;
    const kept = await insertQuickUserTaskLink(tx, { ...link, tokenHash: hashSecret(token) });
    return kept ? token : undefined;
  }

  /** The link `token` stands for, unless it is no link, has expired, or its holder was disabled. */
  async verify(token: string, scope: string): Promise<TaskLink | undefined> {
    if (!isTaskLink(token)) return undefined;
    const row = await liveTaskLink(this.sql, hashSecret(token));
    if (!row) return undefined;
    const claims: AccessClaims = {
      clientId: row.applicationId,
      userId: row.userId,
      tenantId: row.tenantId,
      // The link was made with the application's own credentials, for a user who has none.
      grant: Grant.ClientCredentials,
      kind: "user",
      scopes: [scope],
      jti: `task-link:${row.taskId}`,
      issuedAt: row.issuedAt,
      expiresAt: row.expiresAt,
    };
    if (this.denylist.refusal(claims)) return undefined;
    return {
      taskId: row.taskId,
      processId: row.processId,
      processEntry: row.processEntry,
      test: row.test,
      claims,
    };
  }
}
