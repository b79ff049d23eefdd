import type { BootstrapChannel } from "../contracts/bootstrap.ts";
import type { Consumer } from "../contracts/broker.ts";
import { isBuiltInChannel } from "../contracts/channels.ts";
import { ALL_JOBS, queueDefinition } from "../contracts/jobs.ts";
import { createGateway } from "../gateway/app.ts";
import { bootstrapEntries } from "../gateway/bootstrap-sections.ts";
import { unreadGatewayServices } from "../gateway/gateway-services.ts";
import { type HttpServer, listen } from "../gateway/http-server.ts";
import { LiveChannels } from "../notifications/live-channels.ts";
import { startPushRetention } from "../push/push-retention.ts";
import type { PushWaiters } from "../push/push-waiters.ts";
import type { Config } from "../runtime/config.ts";
import type { EmbeddedPostgres } from "../runtime/embedded-postgres.ts";
import { type MetricsServer, startMetricsServer } from "../runtime/metrics-server.ts";
import { warmUpNextTick } from "../runtime/next-tick-warm-up.ts";
import { connectPlatform, type Platform } from "../runtime/platform.ts";
import { observeBroker, observePushSubscriptions } from "../runtime/platform-metrics.ts";
import { readiness } from "../runtime/readiness.ts";
import type { JobParts } from "../workers/job-parts.ts";
import { jobsForQueues } from "../workers/job-runner.ts";
import { observeOutbox } from "../workflow/outbox/outbox-metrics.ts";
import type { StatisticsCache } from "../workflow/statistics/statistics-cache.ts";

/** A started process: what it runs, and how to stop it gracefully. */
export interface RunningProcess {
  platform: Platform;
  /** The notification channels as configured now. */
  channels: LiveChannels;
  http: HttpServer | undefined;
  /** The push subscriptions a gateway holds. */
  push: PushWaiters | undefined;
  /** The statistics' answers a gateway keeps. */
  statistics: StatisticsCache | undefined;
  consumers: Consumer[];
  /** Stops accepting work, drains requests and jobs in flight, then closes the connections. */
  stop(): Promise<void>;
}

/** Every queue there is: each job kind's, and for a queue family one per member (external channels). */
function allQueues(channels: readonly BootstrapChannel[]): string[] {
  const external = channels.map((channel) => channel.name).filter((name) => !isBuiltInChannel(name));
  return ALL_JOBS.flatMap((job) =>
    job.family ? external.map((name) => `${job.queue}.${name}`) : [job.queue],
  );
}

interface ProcessParts {
  name: string;
  serveHttp: boolean;
  queues: readonly string[] | "all";
  /** The embedded database, when the entry started it while the platform's modules loaded. */
  embeddedDatabase?: Promise<EmbeddedPostgres>;
}

async function startProcess(config: Config, parts: ProcessParts): Promise<RunningProcess> {
  // Before anything else runs: see next-tick-warm-up.ts.
  await warmUpNextTick();
  // Loaded only where jobs run (the job modules would otherwise make up much of a gateway's
  // heap), and while the database starts.
  const jobModule =
    parts.queues === "all" || parts.queues.length > 0 ? import("../workers/job-parts.ts") : undefined;
  jobModule?.catch(() => {});
  const { platform, ready } = await connectPlatform(config, parts.name, {
    applyBootstrap: parts.serveHttp ? bootstrapEntries : undefined,
    embeddedDatabase: parts.embeddedDatabase,
  });
  const { log, broker, db } = platform;
  observeBroker(broker);
  observeOutbox(db.sql);
  const draining = { value: false };
  // The routes, which need no data, are made while the database starts (the embedded one takes
  // a second); the services behind them read theirs once it serves, before the first request.
  const channels = new LiveChannels(db.sql, log);
  const services = parts.serveHttp ? unreadGatewayServices(platform, channels) : undefined;
  const gateway = services && createGateway({ ...platform, ...services.services, draining });
  const push = services?.services.push;
  if (push) observePushSubscriptions(() => push.size);
  await ready();
  let http: HttpServer | undefined;
  let metricsServer: MetricsServer | undefined;
  let jobs: JobParts | undefined;
  let stopPushRetention: (() => void) | undefined;
  const { catalogue } = platform.jobs;
  try {
    await Promise.all([channels.read(db.changes), services?.read()]);
    // The gateway publishes to every queue, so it declares them all before taking requests.
    const everyQueue = allQueues(channels.list);
    const declare = (queues: readonly string[]) =>
      broker.declare(jobsForQueues(catalogue, queues).map(({ job }) => queueDefinition(job)));
    await declare(everyQueue);
    const queues = parts.queues === "all" ? everyQueue : parts.queues;
    if (queues.length > 0) {
      const { startJobParts } = await (jobModule ?? import("../workers/job-parts.ts"));
      jobs = await startJobParts(config, platform, channels, catalogue, queues);
    }
    // A channel added while running gets its queue, and a worker of every queue consumes it.
    const known = new Set(everyQueue);
    channels.follow(async (channels) => {
      const added = allQueues(channels).filter((queue) => !known.has(queue));
      if (added.length === 0) return;
      await declare(added);
      for (const queue of added) known.add(queue);
      if (parts.queues === "all") await jobs?.consume(added);
    });
    if (!parts.serveHttp && config.metrics.port !== undefined) {
      metricsServer = await startMetricsServer(
        {
          port: config.metrics.port,
          host: config.http.host,
          token: config.metrics.token,
          open: config.metrics.open,
          readiness: () => readiness({ db, broker, draining }),
        },
        log,
      );
    }
    if (gateway && push) {
      // Listening before serving: a poll held from the first request hears every notice.
      await push.start();
      // Here rather than in a worker: a deployment always runs a gateway, not always a given worker.
      stopPushRetention = startPushRetention(
        db.sql,
        {
          maxAgeMs: config.push.retentionSeconds * 1000,
          keepPerUser: config.push.maxPerUser,
          intervalMs: config.push.pruneIntervalMs,
        },
        log,
      );
      http = await listen(gateway, config.http);
      const base = `http://${config.http.host === "0.0.0.0" ? "localhost" : config.http.host}:${http.port}`;
      log.info({ url: base, docs: `${base}/docs`, database: db.kind, broker: broker.kind }, "serving");
    }
  } catch (error) {
    await metricsServer?.close();
    stopPushRetention?.();
    await push?.stop();
    jobs?.stopPeriodicTasks();
    await jobs?.stop(0);
    await broker.close();
    await db.close();
    throw error;
  }
  return {
    platform,
    channels,
    http,
    push,
    statistics: services?.services.statistics,
    consumers: jobs?.consumers ?? [],
    async stop() {
      draining.value = true;
      jobs?.stopPeriodicTasks();
      stopPushRetention?.();
      // Held polls answer at once (empty) and streams end, so they do not hold the drain open.
      push?.drain();
      const drainMs = config.shutdownTimeoutMs;
      await http?.close(drainMs);
      await push?.stop();
      await jobs?.stop(drainMs);
      await broker.close();
      await db.close();
      await metricsServer?.close();
    },
  };
}

/** Everything in one process: the embedded mode of `npm start`. */
export function startAllInOne(
  config: Config,
  embeddedDatabase?: Promise<EmbeddedPostgres>,
): Promise<RunningProcess> {
  return startProcess(config, { name: "platform", serveHttp: true, queues: "all", embeddedDatabase });
}

export function startGateway(config: Config): Promise<RunningProcess> {
  return startProcess(config, { name: "gateway", serveHttp: true, queues: [] });
}

/** A worker consuming the named queues, or every queue there is. */
export function startWorker(config: Config, queues: readonly string[] | "all"): Promise<RunningProcess> {
  const name = queues === "all" ? "worker all" : `worker ${queues.join(",")}`;
  return startProcess(config, { name, serveHttp: false, queues });
}
