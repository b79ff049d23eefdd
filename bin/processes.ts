import { join } from "node:path";
import type { Bootstrap } from "../contracts/bootstrap.ts";
import type { Consumer } from "../contracts/broker.ts";
import { FEED_SYNC_QUEUE } from "../contracts/feed.ts";
import { ALL_JOBS, jobCatalogue, queueDefinition, withOperatorPolicy } from "../contracts/jobs.ts";
import { BUILT_IN_CHANNELS } from "../contracts/notification.ts";
import { createGateway } from "../gateway/app.ts";
import { type HttpServer, listen } from "../gateway/http-server.ts";
import { createOAuthServices } from "../gateway/oauth/oauth-services.ts";
import type { Config } from "../runtime/config.ts";
import { type MetricsServer, startMetricsServer } from "../runtime/metrics-server.ts";
import { openPlatform, type Platform } from "../runtime/platform.ts";
import { observeBroker } from "../runtime/platform-metrics.ts";
import { TemplateSource } from "../runtime/template-source.ts";
import { OfficeConverter } from "../workers/export/office-converter.ts";
import { startFeedScheduler } from "../workers/feed/feed-scheduler.ts";
import { startBlobSweeper } from "../workers/files/blob-sweeper.ts";
import { createJobHandlers } from "../workers/job-handlers.ts";
import { jobsForQueues, startJobConsumers } from "../workers/job-runner.ts";
import { loadChannelSenders } from "../workers/notify/channel-senders.ts";
import type { GatedSender } from "../workers/notify/gated-sender.ts";
import { startPendingSweeper } from "../workers/notify/pending-sweeper.ts";
import { createPadesSigner } from "../workers/sign/pades-signature.ts";
import type { SignDeps } from "../workers/sign/sign-document.ts";
import { loadSigningCertificate } from "../workers/sign/signing-certificate.ts";

/** A started process: what it runs, and how to stop it gracefully. */
export interface RunningProcess {
  platform: Platform;
  http: HttpServer | undefined;
  consumers: Consumer[];
  /** Stops accepting work, drains requests and jobs in flight, then closes the connections. */
  stop(): Promise<void>;
}

/** How often a `files.thumbs` worker looks for file contents no file uses any more. */
const BLOB_SWEEP_INTERVAL_MS = 10 * 60_000;

/** Every queue there is: each job kind's, and for a queue family one per member (external channels). */
function allQueues(bootstrap: Bootstrap | undefined): string[] {
  const external = (bootstrap?.channels ?? [])
    .map((channel) => channel.name)
    .filter((name) => !(BUILT_IN_CHANNELS as readonly string[]).includes(name));
  return ALL_JOBS.flatMap((job) =>
    job.family ? external.map((name) => `${job.queue}.${name}`) : [job.queue],
  );
}

interface ProcessParts {
  name: string;
  serveHttp: boolean;
  queues: readonly string[] | "all";
}

async function startProcess(config: Config, parts: ProcessParts): Promise<RunningProcess> {
  const platform = await openPlatform(config, parts.name, { applyBootstrap: parts.serveHttp });
  const { log, broker, db } = platform;
  observeBroker(broker);
  const draining = { value: false };
  let http: HttpServer | undefined;
  let metricsServer: MetricsServer | undefined;
  let consumers: Consumer[] = [];
  let senders = new Map<string, GatedSender>();
  let stopSweeper = () => {};
  let stopBlobSweeper = () => {};
  let stopFeedScheduler = () => {};
  let templates: TemplateSource | undefined;
  let converter: OfficeConverter | undefined;
  const catalogue = withOperatorPolicy(jobCatalogue, {
    delivery: { retryDelaysMs: config.notify.retryDelaysMs, timeoutMs: config.notify.sendTimeoutMs },
    signTimeoutMs: config.sign.timeoutMs,
    exportTimeoutMs: config.export.timeoutMs,
  });
  try {
    // The gateway publishes to every queue, so it declares them all before taking requests.
    const everyQueue = allQueues(platform.bootstrap);
    await broker.declare(jobsForQueues(catalogue, everyQueue).map(({ job }) => queueDefinition(job)));
    const queues = parts.queues === "all" ? everyQueue : parts.queues;
    if (queues.length > 0) {
      senders = await loadChannelSenders(platform.bootstrap?.channels ?? [], log);
      // A lease outlives the job's timeout, so a send still running after it cannot be doubled.
      const leaseSeconds = Math.ceil(config.notify.sendTimeoutMs / 1000) + 2;
      templates = new TemplateSource({
        sql: db.sql,
        storage: platform.storage,
        publicUrl: config.http.publicUrl,
        allowedHosts: config.export.templateHosts,
        maxBytes: config.export.templateMaxBytes,
        timeoutMs: config.export.timeoutMs,
      });
      converter = new OfficeConverter({
        python: config.export.officePython,
        soffice: config.export.soffice,
        profileDir: join(config.dataDir, "office-profile"),
        timeoutMs: config.export.convertTimeoutMs,
        log,
      });
      if (config.export.officePrewarm && queues.includes("export")) {
        converter.warmUp().catch((error) => log.error({ err: error }, "LibreOffice could not be started"));
      }
      const handlers = createJobHandlers({
        delivery: { sql: db.sql, senders, leaseSeconds },
        thumbnails: { sql: db.sql, storage: platform.storage },
        export: { storage: platform.storage, templates, converter, timeZone: config.export.timeZone },
        feed: { sql: db.sql, log, env: process.env, staleAfterSeconds: config.feed.staleRunSeconds },
        sign: queues.includes("sign") ? await signDeps(config, platform) : undefined,
      });
      consumers = await startJobConsumers(broker, catalogue, handlers, queues, log, {
        concurrency: config.workerConcurrency,
      });
      if (queues.includes("files.thumbs")) {
        stopBlobSweeper = startBlobSweeper(
          { sql: db.sql, storage: platform.storage, log },
          BLOB_SWEEP_INTERVAL_MS,
        );
      }
      if (queues.includes(FEED_SYNC_QUEUE))
        stopFeedScheduler = startFeedScheduler({ sql: db.sql, broker, log });
      if (queues.some((queue) => queue.startsWith("notify."))) {
        const longestDelayMs = Math.max(0, ...config.notify.retryDelaysMs);
        stopSweeper = startPendingSweeper(
          { sql: db.sql, broker, log },
          {
            pendingAgeSeconds: config.notify.pendingAgeSeconds,
            maxAttempts: config.notify.retryDelaysMs.length + 1,
            staleRetryingSeconds: Math.ceil((longestDelayMs + config.notify.sendTimeoutMs) / 1000) + 60,
          },
          config.notify.sweepIntervalMs,
        );
      }
    }
    if (!parts.serveHttp && config.metrics.port !== undefined) {
      metricsServer = await startMetricsServer(
        { port: config.metrics.port, host: config.http.host, token: config.metrics.token },
        log,
      );
    }
    if (parts.serveHttp) {
      const oauth = await createOAuthServices(db.sql, config);
      http = await listen(createGateway({ ...platform, oauth, draining }), config.http);
      const base = `http://${config.http.host === "0.0.0.0" ? "localhost" : config.http.host}:${http.port}`;
      log.info({ url: base, docs: `${base}/docs`, database: db.kind, broker: broker.kind }, "serving");
    }
  } catch (error) {
    await metricsServer?.close();
    stopSweeper();
    stopBlobSweeper();
    stopFeedScheduler();
    await Promise.all(consumers.map((consumer) => consumer.stop(0)));
    await templates?.close();
    await converter?.close();
    await Promise.all([...senders.values()].map((sender) => sender.close()));
    await broker.close();
    await db.close();
    throw error;
  }
  return {
    platform,
    http,
    consumers,
    async stop() {
      draining.value = true;
      stopSweeper();
      stopBlobSweeper();
      stopFeedScheduler();
      const drainMs = config.shutdownTimeoutMs;
      await http?.close(drainMs);
      await Promise.all(consumers.map((consumer) => consumer.stop(drainMs)));
      await templates?.close();
      await converter?.close();
      await Promise.all([...senders.values()].map((sender) => sender.close()));
      await broker.close();
      await db.close();
      await metricsServer?.close();
    },
  };
}

async function signDeps(config: Config, platform: Platform): Promise<SignDeps> {
  const signer =
    config.sign.signature === "pades"
      ? createPadesSigner(
          await loadSigningCertificate(
            { p12File: config.sign.p12File, passphrase: config.sign.p12Passphrase, dataDir: config.dataDir },
            platform.log,
          ),
        )
      : undefined;
  return { sql: platform.db.sql, storage: platform.storage, signer };
}

/** Everything in one process: the embedded mode of `npm start`. */
export function startAllInOne(config: Config): Promise<RunningProcess> {
  return startProcess(config, { name: "platform", serveHttp: true, queues: "all" });
}

export function startGateway(config: Config): Promise<RunningProcess> {
  return startProcess(config, { name: "gateway", serveHttp: true, queues: [] });
}

/** A worker consuming the named queues, or every queue there is. */
export function startWorker(config: Config, queues: readonly string[] | "all"): Promise<RunningProcess> {
  const name = queues === "all" ? "worker all" : `worker ${queues.join(",")}`;
  return startProcess(config, { name, serveHttp: false, queues });
}
