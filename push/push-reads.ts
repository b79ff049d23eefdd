import { type Sql, transaction } from "../runtime/database.ts";
import {
  ensurePushClock,
  type PushType,
  pushMessagesAfter,
  type StoredPushMessage,
  settledPushClock,
} from "./push-message-store.ts";

/** Who subscribes to what: one user's messages of one data mode and of some types. */
export interface PushSubscription {
  userId: string;
  test: boolean;
  types: readonly PushType[];
}

/**
 * A subscriber's answer: the messages after its `since`, oldest first, and the `time` to pass as
 * its next `since`: the last message's, or when there are none, a time no later message will have.
 */
export interface PushAnswer {
  messages: StoredPushMessage[];
  time: number;
}

/** The messages after `since`, oldest first, at most `limit`; the statement a held poll repeats. */
export function messagesAfter(
  sql: Sql,
  subscription: PushSubscription,
  since: number,
  limit: number,
): Promise<StoredPushMessage[]> {
  return pushMessagesAfter(sql, { ...subscription, since, limit });
}

/**
 * The answer as of now, safe to pass back: the messages after `since`, or when there are none, the
 * latest time no message of the user will ever fall at or before: the database's now less 1 ms (a
 * later message gets at least now) or the user's last time, whichever is later, once the stores
 * of theirs in flight have committed. A message stored in flight a moment before (its time
 * earlier than now) is therefore read, never skipped. Without `since`, that time alone: where a
 * first subscription starts.
 */
export function settledAnswer(
  sql: Sql,
  subscription: PushSubscription,
  since: number | undefined,
  limit: number,
): Promise<PushAnswer> {
  return transaction(sql, async (tx) => {
    await ensurePushClock(tx, subscription.userId);
    const clock = await settledPushClock(tx, subscription.userId);
    const settled = Math.max(clock.lastTime, clock.now - 1);
    if (since === undefined) return { messages: [], time: settled };
    const messages = await pushMessagesAfter(tx, { ...subscription, since, limit });
    if (messages.length > 0) return { messages, time: messages.at(-1)!.time };
    return { messages, time: Math.max(since, settled) };
  });
}
