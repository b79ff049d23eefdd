import type { Broker } from "../contracts/broker.ts";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { type Queryable, type Sql, transaction } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import {
  insertPushMessages,
  type NewPushMessage,
  type PushType,
  type StoredPushMessage,
} from "./push-message-store.ts";
import { broadcastPushNotices } from "./push-notices.ts";

export type { NewPushMessage, PushType, StoredPushMessage };

/** Spec 001's push event types, as `tid` names them. */
export const PUSH_TYPES: readonly PushType[] = ["task", "cc"];

/** Longest event id a message carries (the table checks it too). */
export const MAX_EID_LENGTH = 256;

/** Messages one store takes at most: a caller with more stores them in several. */
export const MAX_MESSAGES_PER_STORE = 5_000;

/** What storing push messages needs: the broker its notices go out on, and a log for a lost one. */
export interface PushDeps {
  broker: Broker;
  log: Logger;
}

/** Stored messages, and the step that tells every gateway of them once the transaction committed. */
export interface StoredPush {
  messages: StoredPushMessage[];
  /**
   * Broadcasts the notices; call it after the commit (before, a gateway could read too early). It
   * never fails: a notice the broker did not take is logged and lost, and its messages stay in
   * Postgres, where the subscriber's next poll with `since` reads them.
   */
  afterCommit(): Promise<void>;
}

/**
 * Stores push messages for users inside the caller's transaction, in one statement (each
 * user's in the order given, with strictly increasing times), and returns the broadcast of their
 * notices to run after the commit. The relay and spec 001's `POST /message` both store through it.
 */
export async function storePushMessages(
  tx: Queryable,
  deps: PushDeps,
  messages: readonly NewPushMessage[],
): Promise<StoredPush> {
  if (messages.length > MAX_MESSAGES_PER_STORE)
    throw new PlatformError(ErrorCode.Internal, `at most ${MAX_MESSAGES_PER_STORE} push messages per store`);
  const stored = await insertPushMessages(tx, messages);
  return {
    messages: stored,
    async afterCommit() {
      try {
        await broadcastPushNotices(deps.broker, stored);
      } catch (error) {
        deps.log.warn(
          { err: (error as Error).message, messages: stored.length },
          "push notices not broadcast; subscribers read the messages at their next poll",
        );
      }
    },
  };
}

/** One message published on its own (spec 001's `POST /message`): stored, committed, announced. */
export async function publishPushMessage(
  sql: Sql,
  deps: PushDeps,
  message: NewPushMessage,
): Promise<StoredPushMessage> {
  const stored = await transaction(sql, (tx) => storePushMessages(tx, deps, [message]));
  await stored.afterCommit();
  return stored.messages[0]!;
}
