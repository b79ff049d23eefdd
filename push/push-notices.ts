import { z } from "zod";
import type { Broker, StopListening } from "../contracts/broker.ts";
import type { Logger } from "../runtime/logger.ts";
import type { StoredPushMessage } from "./push-message-store.ts";

/** The broker topic every gateway listens on for new push messages. */
export const PUSH_TOPIC = "push.messages";

/**
 * That a user has messages up to `time` in a data mode: ids only, never a message's content, so a
 * gateway answers its polls from Postgres, the one record, and a forged or lost notice changes
 * nothing a client reads.
 */
export interface PushNotice {
  userId: string;
  test: boolean;
  time: number;
}

/** Notices per broadcast: a broadcast stays a small frame however many users a batch reaches. */
const NOTICES_PER_BROADCAST = 500;

const broadcastSchema = z.object({
  notices: z
    .array(
      z.object({
        userId: z.uuid(),
        test: z.boolean(),
        time: z.number().int().nonnegative(),
      }),
    )
    .max(NOTICES_PER_BROADCAST),
});

/** One notice per user and data mode, with their newest time, broadcast in bounded batches. */
export async function broadcastPushNotices(
  broker: Broker,
  messages: readonly StoredPushMessage[],
): Promise<void> {
  const newest = new Map<string, PushNotice>();
  for (const { userId, test, time } of messages) {
    const key = `${userId} ${test}`;
    if ((newest.get(key)?.time ?? -1) < time) newest.set(key, { userId, test, time });
  }
  const notices = [...newest.values()];
  for (let start = 0; start < notices.length; start += NOTICES_PER_BROADCAST) {
    await broker.broadcast(PUSH_TOPIC, { notices: notices.slice(start, start + NOTICES_PER_BROADCAST) });
  }
}

/** Calls `handler` with each notice any process broadcasts; what does not read as notices is dropped. */
export function listenForPushNotices(
  broker: Broker,
  handler: (notice: PushNotice) => void,
  log: Logger,
): Promise<StopListening> {
  return broker.listen(PUSH_TOPIC, (body) => {
    const parsed = broadcastSchema.safeParse(body);
    if (!parsed.success) {
      log.warn("an unreadable push notice was dropped");
      return;
    }
    for (const notice of parsed.data.notices) handler(notice);
  });
}
