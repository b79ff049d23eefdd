import { callbackSubscriber } from "../../workflow/messenger/callback-subscriber.ts";
import { configuredChannels } from "../../workflow/notification-text.ts";
import { startOutboxRelay } from "../../workflow/outbox/outbox-relay.ts";
import type { OutboxSubscriber } from "../../workflow/outbox/outbox-subscriber.ts";
import { startStatisticsHistory } from "../../workflow/statistics/statistics-history-job.ts";
import { workflowStatisticsSubscriber } from "../../workflow/statistics/statistics-subscriber.ts";
import { workflowNotifySubscriber } from "../../workflow/workflow-notify.ts";
import { workflowPushSubscriber } from "../../workflow/workflow-push.ts";
import { type PartContext, workerPart } from "../worker-part.ts";

/** The outbox relay's subscribers, each made from what the part starts with: adding one is a line here. */
const OUTBOX_SUBSCRIBERS: readonly ((context: PartContext) => OutboxSubscriber)[] = [
  () => callbackSubscriber,
  ({ platform }) => workflowPushSubscriber({ broker: platform.broker, log: platform.log }),
  ({ platform, channels }) =>
    workflowNotifySubscriber({
      queue: { jobs: platform.jobs, brokerConnected: () => platform.broker.isConnected() },
      channels: () => configuredChannels(channels.list),
    }),
  () => workflowStatisticsSubscriber,
];

/**
 * The outbox relay, in every process that runs jobs (it has no queue of its own): several worker
 * processes may run it at once, and the embedded mode runs it in its one process. With it, the
 * counting of the statistics' history, which takes turns with the relay's statistics subscriber.
 */
export const outboxPart = workerPart({
  jobs: [],
  async start(context) {
    const { config, platform } = context;
    const subscribers = OUTBOX_SUBSCRIBERS.map((make) => make(context));
    let stopping: Promise<void> | undefined;
    return {
      handlers: {},
      periodicTasks: [
        () => {
          const relay = startOutboxRelay({ sql: platform.db.sql, log: platform.log }, subscribers, {
            retainSeconds: config.workflow.eventsRetainSeconds,
          });
          return () => {
            stopping = relay.stop();
          };
        },
        () => startStatisticsHistory({ sql: platform.db.sql, log: platform.log }),
      ],
      async close() {
        await stopping;
      },
    };
  },
});
