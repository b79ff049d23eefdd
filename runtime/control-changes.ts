import type postgres from "postgres";
import type { Logger } from "./logger.ts";

/**
 * What an operator (or a client revoking a token) changed that every process holds in memory: the
 * processes drop or update what they remember of it. Small on purpose: a Postgres notification
 * carries at most 8,000 bytes.
 */
export type ControlChange =
  /** `disabled` when that is what changed (a new secret, say, changes only what is cached). */
  | { kind: "application"; id: string; disabled?: boolean }
  | { kind: "user"; id: string; disabled: boolean }
  | { kind: "access-token-revoked"; jti: string; expiresAt: number }
  /** A workflow app of the tenant, or its versions, changed (deployed, on or off line, ready). */
  | { kind: "workflow-app"; tenantId: string }
  /** A bootstrap document was applied: anything may have changed. */
  | { kind: "configuration" };

export interface ControlChangeListener {
  change(change: ControlChange): void;
  /** Called when changes may have been missed (a lost connection): read everything again. */
  resync(): void;
}

/**
 * The platform's change events. Announced once the change is committed, they reach the announcing
 * process at once and every other process through Postgres LISTEN/NOTIFY, which every process
 * already connects to (the admin CLI too, which needs no broker for it). The embedded mode is one
 * process: its events stay in it.
 */
export interface ControlChanges {
  announce(change: ControlChange): Promise<void>;
  subscribe(listener: ControlChangeListener): Promise<void>;
}

/**
 * Calls `forget` whenever a change of one of `kinds` is announced, and when changes may have been
 * missed: for what a process remembers of rows those changes touch.
 */
export function forgetOnChanges(
  changes: ControlChanges,
  kinds: readonly ControlChange["kind"][],
  forget: () => void,
): Promise<void> {
  return changes.subscribe({
    change: (change) => {
      if (kinds.includes(change.kind)) forget();
    },
    resync: forget,
  });
}

const CHANNEL = "platform_control_changes";

export function inProcessControlChanges(): ControlChanges {
  const listeners: ControlChangeListener[] = [];
  return {
    async announce(change) {
      for (const listener of listeners) listener.change(change);
    },
    async subscribe(listener) {
      listeners.push(listener);
    },
  };
}

export function postgresControlChanges(sql: postgres.Sql, log: Logger): ControlChanges {
  const listeners: ControlChangeListener[] = [];
  let listening: Promise<unknown> | undefined;
  let connectedBefore = false;
  const dispatch = (change: ControlChange) => {
    for (const listener of listeners) listener.change(change);
  };
  return {
    async announce(change) {
      await sql.notify(CHANNEL, JSON.stringify(change));
      // Handlers are idempotent: the notification coming back to this process repeats it harmlessly.
      dispatch(change);
    },
    async subscribe(listener) {
      listeners.push(listener);
      listening ??= sql.listen(
        CHANNEL,
        (payload) => {
          try {
            dispatch(JSON.parse(payload) as ControlChange);
          } catch (error) {
            log.warn({ err: error }, "unreadable control change ignored");
          }
        },
        () => {
          // (Re)connected: a reconnect may have missed changes, the first connect has not.
          if (connectedBefore) for (const each of listeners) each.resync();
          connectedBefore = true;
        },
      );
      await listening;
    },
  };
}
