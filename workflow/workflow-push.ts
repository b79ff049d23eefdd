import {
  MAX_MESSAGES_PER_STORE,
  type NewPushMessage,
  type PushDeps,
  storePushMessages,
} from "../push/push-messages.ts";
import type { Queryable } from "../runtime/database.ts";
import { recipientsOf } from "./event-recipients.ts";
import type { OutboxEvent, OutboxSubscriber } from "./outbox/outbox-subscriber.ts";

/**
 * Spec 001's push from the engine's own events: a task becoming someone's to-do publishes a `task`
 * message (its id the task's) to each person whose to-do it is (candidates and delegates); a copy
 * publishes `cc` (its id the process's) to each reader. The same messages as `POST /message`,
 * stored in the relay's transaction; their notices wake the gateways' held polls after its commit.
 */
export function workflowPushSubscriber(deps: PushDeps): OutboxSubscriber {
  return {
    name: "workflow.push",
    async accept(events, tx) {
      const messages = await pushMessagesOf(tx, events);
      if (messages.length === 0) return undefined;
      const steps: (() => Promise<void>)[] = [];
      for (let start = 0; start < messages.length; start += MAX_MESSAGES_PER_STORE) {
        const stored = await storePushMessages(
          tx,
          deps,
          messages.slice(start, start + MAX_MESSAGES_PER_STORE),
        );
        steps.push(stored.afterCommit);
      }
      return async () => {
        for (const step of steps) await step();
      };
    },
  };
}

/** The messages the events make; a to-do handled before its event is read makes none. */
async function pushMessagesOf(tx: Queryable, events: readonly OutboxEvent[]): Promise<NewPushMessage[]> {
  const recipients = await recipientsOf(tx, events);
  const messages: NewPushMessage[] = [];
  for (const event of events) {
    const about = recipients.get(event.id);
    if (!about) continue;
    const type = about.kind === "todo" ? "task" : "cc";
    const eid = about.kind === "todo" ? event.taskId! : event.processId;
    for (const userId of about.users)
      messages.push({ tenantId: event.tenantId, test: event.test, userId, type, eid });
  }
  return messages;
}
