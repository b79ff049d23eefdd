import { CallbackPoster } from "../../workflow/messenger/callback-delivery.ts";
import { CallbackSecrets } from "../../workflow/messenger/callback-secrets.ts";
import { workerPart } from "../worker-part.ts";
import { CallbackLoop } from "./callback-loop.ts";
import { ChannelSenders } from "./channel-senders.ts";
import { deliverTasks } from "./deliver-tasks.ts";
import { startPendingSweeper } from "./pending-sweeper.ts";

/**
 * Notification deliveries on every channel, the sweep of tasks whose job was lost, and the
 * workflow's messenger callbacks: deliveries to outside systems too, with their own retries,
 * run by whichever processes send notifications.
 */
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
    const { callbacks } = config;
    const callbackLoop = new CallbackLoop(
      {
        sql: db.sql,
        log,
        secrets: new CallbackSecrets({ secretKey: callbacks.secretKey, dataDir: config.dataDir }),
        poster: new CallbackPoster({ allowedHosts: callbacks.allowedHosts, timeoutMs: callbacks.timeoutMs }),
        retryDelaysMs: callbacks.retryDelaysMs,
      },
      callbacks,
    );
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
        () => callbackLoop.start(),
      ],
      async close() {
        await Promise.all([senders.close(), callbackLoop.close()]);
      },
    };
  },
});
