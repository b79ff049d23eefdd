import { workerPart } from "../worker-part.ts";
import { startFeedScheduler } from "./feed-scheduler.ts";
import { syncFeed } from "./sync-feed.ts";

/** Enterprise feed runs, and the schedule that queues them. */
export const feedPart = workerPart({
  jobs: ["feedSync"],
  async start({ config, platform }) {
    const { db, jobs, log } = platform;
    return {
      handlers: {
        feedSync: syncFeed({
          sql: db.sql,
          log,
          env: process.env,
          staleAfterSeconds: config.feed.staleRunSeconds,
        }),
      },
      periodicTasks: [() => startFeedScheduler({ sql: db.sql, jobs, log })],
    };
  },
});
