import type { Queryable } from "../../runtime/database.ts";

/** A row of the outbox `workflow_events` as the relay hands it on. */
export interface OutboxEvent {
  /** The row's id: what a subscriber de-duplicates by, since an event may be offered again. */
  id: string;
  /** Its place in the relay's order; increasing, with gaps. */
  position: number;
  tenantId: string;
  test: boolean;
  processId: string;
  /** `process.started`, `todo.created`, `cc`… (docs/workflows.md). */
  type: string;
  taskId: string | null;
  users: string[];
  /** The engine's event as it was written. */
  payload: Record<string, unknown>;
  createdAt: Date;
}

/** Work done after the relay's transaction committed (a broker publish, say); see docs/outbox-relay.md. */
export type AfterCommit = () => Promise<void>;

/** One consumer of the outbox: each event reaches it at least once, in position order. */
export interface OutboxSubscriber {
  /** Stable name: the key of its cursor. */
  readonly name: string;
  /**
   * Takes a batch in position order inside the relay's transaction; may return a step to run after
   * commit. Throwing rolls the batch back; it is offered again.
   */
  accept(events: readonly OutboxEvent[], tx: Queryable): Promise<AfterCommit | undefined>;
}
