import type { Queryable } from "../../runtime/database.ts";
import { readOutboxLag, type SubscriberLag } from "./outbox-store.ts";

export type { SubscriberLag };

/** How far the relay is behind: events waiting for a position, and each cursor's lag. */
export interface OutboxLag {
  unsequenced: number;
  /** One per cursor, by name: a subscriber that ran once keeps its cursor, registered now or not. */
  subscribers: SubscriberLag[];
}

/** The relay's lag as operators read it (admin API, `/metrics`), in one statement. */
export function outboxLag(sql: Queryable): Promise<OutboxLag> {
  return readOutboxLag(sql);
}
