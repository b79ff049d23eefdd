import type { Queryable } from "../../runtime/database.ts";

/** A row of the outbox (`workflow_events`) as the relay hands it on. */
export interface OutboxEvent {
  id: string;
  tenantId: string;
  test: boolean;
  processId: string;
  type: string;
  taskId: string | null;
  users: string[];
  /** The engine's event as written. */
  payload: unknown;
  createdAt: Date;
}

/** What the relay hands the outbox's events to, each with its own cursor. */
export interface OutboxSubscriber {
  /** Stable: the key of its cursor. */
  readonly name: string;
  /**
   * Takes a batch in commit order inside the relay's transaction, and may answer a step to run once
   * it committed (a publish). Throwing rolls the batch back; it is offered again.
   */
  accept(events: readonly OutboxEvent[], tx: Queryable): Promise<(() => Promise<void>) | undefined>;
}
