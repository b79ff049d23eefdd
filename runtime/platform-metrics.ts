import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Broker } from "../contracts/broker.ts";
import { Counter, Gauge, gaugeText, Histogram, metrics, type Sample } from "./metrics.ts";

/** What operators read off `/metrics`: named once here so every part records the same series. */

const LATENCY_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const JOB_BOUNDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export const httpRequests = metrics.register(
  new Counter("http_requests_total", "HTTP requests answered, by route and status.", [
    "method",
    "route",
    "status",
  ]),
);

export const httpDuration = metrics.register(
  new Histogram(
    "http_request_duration_seconds",
    "Time from a request's arrival to its answer, by route.",
    ["method", "route"],
    LATENCY_BOUNDS,
  ),
);

export const jobsHandled = metrics.register(
  new Counter(
    "jobs_total",
    "Jobs handled, by queue and what became of them: done, refused (the caller's mistake, answered), retry (scheduled again) or dead (dead-lettered).",
    ["queue", "outcome"],
  ),
);

export const jobsRedelivered = metrics.register(
  new Counter(
    "jobs_redelivered_total",
    "Jobs handed out again because the worker that held them died or lost its connection.",
    ["queue"],
  ),
);

/** Jobs whose handler is running now, per queue: how busy the workers of this process are. */
export const jobsInProgress = new Map<string, number>();
metrics.register(
  new Gauge("jobs_in_progress", "Jobs whose handler is running now, by queue.", ["queue"], () =>
    [...jobsInProgress].map(([queue, running]): Sample => [[queue], running]),
  ),
);

export const jobDuration = metrics.register(
  new Histogram("job_duration_seconds", "Time a handler took on one job, by queue.", ["queue"], JOB_BOUNDS),
);

const eventLoopDelay = monitorEventLoopDelay({ resolution: 20 });
eventLoopDelay.enable();

metrics.register(
  new Gauge("process_resident_memory_bytes", "Resident memory of this process.", [], () => [
    [[], process.memoryUsage.rss()],
  ]),
);
metrics.register(
  new Gauge("nodejs_heap_used_bytes", "V8 heap in use.", [], () => [[[], process.memoryUsage().heapUsed]]),
);
metrics.register(
  new Gauge(
    "nodejs_eventloop_delay_p99_seconds",
    "99th percentile of the event loop's delay since the previous scrape.",
    [],
    () => {
      const p99 = eventLoopDelay.percentile(99) / 1e9;
      eventLoopDelay.reset();
      return [[[], p99]];
    },
  ),
);
metrics.register(
  new Gauge("process_uptime_seconds", "Seconds since this process started.", [], () => [
    [[], Math.round(process.uptime())],
  ]),
);

/** Queue depths and the broker connection, read from the broker this process uses. */
/** Push subscriptions a gateway holds: polls waiting for a message and open streams. */
export function observePushSubscriptions(held: () => number): void {
  metrics.replace(
    new Gauge(
      "push_subscriptions_held",
      "Push subscriptions this gateway holds: polls waiting for a message, and open streams.",
      [],
      () => [[[], held()]],
    ),
  );
}

export function observeBroker(broker: Broker): void {
  metrics.replace(
    new Gauge("broker_connected", "1 while the message broker is connected.", [], () => [
      [[], broker.isConnected() ? 1 : 0],
    ]),
  );
  // Both queue families from one round of questions to the broker per scrape.
  metrics.replace({
    name: "queue_messages",
    async render() {
      const stats = await broker.queueStats();
      return (
        gaugeText(
          "queue_messages",
          "Messages in a queue: ready for a worker, or dead (used up their attempts).",
          ["queue", "state"],
          stats.flatMap((queue): Sample[] => [
            [[queue.queue, "ready"], queue.ready],
            [[queue.queue, "dead"], queue.dead],
          ]),
        ) +
        gaugeText(
          "queue_consumers",
          "Consumers attached to a queue.",
          ["queue"],
          stats.map((queue): Sample => [[queue.queue], queue.consumers]),
        )
      );
    },
  });
}
