import { workerPart } from "../worker-part.ts";
import { ChannelSenders } from "./channel-senders.ts";
import { deliverTasks } from "./deliver-tasks.ts";
import { startPendingSweeper } from "./pending-sweeper.ts";

/** Notification deliveries on every channel, and the sweep of tasks whose job was lost. */
export const notifyPart = workerPart({
  jobs: ["notifyEmail", "notifySms", "notifyApp", "notifyMsgappTemplate", "notifyExternal"],
  async start({ config, platform, channels }) {
    const { db, broker, jobs, log } = platform;
    // A replaced sender stays open as long as a send it started may take.
    const senders = new ChannelSenders(log, config.notify.sendTimeoutMs);
    await senders.start(channels.list);
    channels.follow((list) => senders.update(list));
    // A lease outlives the job's timeout, so a send still running after it cannot be doubled.
    const leaseSeconds = Math.ceil(config.notify.sendTimeoutMs / 1000) + 2;
    const deliver = deliverTasks({ sql: db.sql, senders, leaseSeconds });
    const longestDelayMs = Math.max(0, ...config.notify.retryDelaysMs);
    return {
      handlers: {
        notifyEmail: deliver,
        notifySms: deliver,
        notifyApp: deliver,
        notifyMsgappTemplate: deliver,
        notifyExternal: deliver,
      },
      periodicTasks: [
        () =>
          startPendingSweeper(
            { sql: db.sql, broker, jobs, log },
            {
              pendingAgeSeconds: config.notify.pendingAgeSeconds,
              maxAttempts: config.notify.retryDelaysMs.length + 1,
              staleRetryingSeconds: Math.ceil((longestDelayMs + config.notify.sendTimeoutMs) / 1000) + 60,
            },
            config.notify.sweepIntervalMs,
          ),
      ],
      async close() {
        await senders.close();
      },
    };
  },
});
