import type { Sql } from "../../runtime/database.ts";
import { gaugeText, metrics, type Sample } from "../../runtime/metrics.ts";
import { outboxLag } from "./outbox-lag.ts";

/**
 * The relay's lag on `/metrics`, read from the database at each scrape (one statement), as the
 * queue depths are read from the broker: every process reports the same figures.
 */
export function observeOutbox(sql: Sql): void {
  metrics.replace({
    name: "workflow_outbox",
    async render() {
      const lag = await outboxLag(sql);
      const per = (value: (subscriber: (typeof lag.subscribers)[number]) => number) =>
        lag.subscribers.map((subscriber): Sample => [[subscriber.subscriber], value(subscriber)]);
      return (
        gaugeText(
          "workflow_outbox_unsequenced_events",
          "Outbox events not yet given a position by the relay.",
          [],
          [[[], lag.unsequenced]],
        ) +
        gaugeText(
          "workflow_outbox_position",
          "The last outbox position a subscriber accepted.",
          ["subscriber"],
          per((subscriber) => subscriber.position),
        ) +
        gaugeText(
          "workflow_outbox_events_behind",
          "Outbox events a subscriber has not accepted yet, those without a position included.",
          ["subscriber"],
          per((subscriber) => subscriber.eventsBehind),
        ) +
        gaugeText(
          "workflow_outbox_seconds_behind",
          "Age of the oldest outbox event a subscriber has not accepted; 0 when none.",
          ["subscriber"],
          per((subscriber) => subscriber.secondsBehind),
        )
      );
    },
  });
}
