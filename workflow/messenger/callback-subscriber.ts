import type { Queryable } from "../../runtime/database.ts";
import type { OutboxEvent, OutboxSubscriber } from "../outbox/outbox-subscriber.ts";
import { callbackBody, callbackTypeOf } from "./callback-events.ts";
import { callbackTargetsOf, insertDeliveries, type NewDelivery } from "./callback-store.ts";

/** The URL's host and port as a receiver's key: a slow one holds back only posts to it. */
export function hostKey(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80");
    return `${parsed.hostname}:${port}`;
  } catch {
    return undefined;
  }
}

/** The deliveries a batch of outbox events makes: one per event and URL its version names for its type. */
export async function deliveriesOf(tx: Queryable, events: readonly OutboxEvent[]): Promise<NewDelivery[]> {
  const typed = events.flatMap((event) => {
    const type = callbackTypeOf(event);
    return type ? [{ event, type }] : [];
  });
  if (typed.length === 0) return [];
  const targets = await callbackTargetsOf(tx, [...new Set(typed.map(({ event }) => event.processId))]);
  const byProcess = new Map(targets.map((target) => [target.processId, target]));
  const deliveries: NewDelivery[] = [];
  for (const { event, type } of typed) {
    const target = byProcess.get(event.processId);
    if (!target) continue;
    const urls = new Set(target.events.filter((entry) => entry.on === type).map((entry) => entry.url));
    if (urls.size === 0) continue;
    const body = callbackBody(event, type, target);
    for (const url of urls) {
      // A URL a request cannot be made to is kept, with no host, to end dead saying why.
      deliveries.push({
        eventId: String(event.id),
        url,
        host: hostKey(url) ?? "",
        tenantId: event.tenantId,
        test: event.test,
        appId: target.appId,
        processId: event.processId,
        taskId: event.taskId,
        type,
        body,
      });
    }
  }
  return deliveries;
}

/**
 * The outbox relay's subscriber for messenger callbacks: in the relay's transaction, it records a
 * delivery per event and callback URL; workers post them (callback-delivery.ts). Offered a batch
 * again, it makes no delivery twice.
 */
export const callbackSubscriber: OutboxSubscriber = {
  name: "messenger-callbacks",
  async accept(events, tx) {
    await insertDeliveries(tx, await deliveriesOf(tx, events));
    return undefined;
  },
};
