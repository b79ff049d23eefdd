import { join } from "node:path";
import type { Consumer } from "../contracts/broker.ts";
import { FEED_SYNC_QUEUE } from "../contracts/feed.ts";
import type { jobCatalogue } from "../contracts/jobs.ts";
import type { Config } from "../runtime/config.ts";
import type { Platform } from "../runtime/platform.ts";
import { TemplateSource } from "../runtime/template-source.ts";
import { OfficeConverter } from "./export/office-converter.ts";
import { startFeedScheduler } from "./feed/feed-scheduler.ts";
import { startBlobSweeper } from "./files/blob-sweeper.ts";
import { createJobHandlers } from "./job-handlers.ts";
import { startJobConsumers } from "./job-runner.ts";
import { loadChannelSenders } from "./notify/channel-senders.ts";
import type { GatedSender } from "./notify/gated-sender.ts";
import { startPendingSweeper } from "./notify/pending-sweeper.ts";
import { createPadesSigner } from "./sign/pades-signature.ts";
import type { SignDeps } from "./sign/sign-document.ts";
import { loadSigningCertificate } from "./sign/signing-certificate.ts";

/** How often a `files.thumbs` worker looks for file contents no file uses any more. */
const BLOB_SWEEP_INTERVAL_MS = 10 * 60_000;

/** The job side of a process: consumers, what their handlers hold open, and periodic tasks. */
export interface JobParts {
  consumers: Consumer[];
  /** Stops the sweepers and the feed scheduler, first thing in a shutdown. */
  stopPeriodicTasks(): void;
  /** Stops the consumers (draining up to `drainMs`), then closes what the handlers held. */
  stop(drainMs: number): Promise<void>;
}

/** Consumes `queues` with their handlers and starts the periodic tasks those queues need. */
export async function startJobParts(
  config: Config,
  platform: Platform,
  /** The platform's catalogue, with the operator's delays and timeouts. */
  catalogue: typeof jobCatalogue,
  queues: readonly string[],
): Promise<JobParts> {
  const { log, broker, db, storage } = platform;
  let consumers: Consumer[] = [];
  let senders = new Map<string, GatedSender>();
  const periodic: (() => void)[] = [];
  const templates = new TemplateSource({
    sql: db.sql,
    storage,
    publicUrl: config.http.publicUrl,
    allowedHosts: config.export.templateHosts,
    maxBytes: config.export.templateMaxBytes,
    timeoutMs: config.export.timeoutMs,
  });
  const converter = new OfficeConverter({
    python: config.export.officePython,
    soffice: config.export.soffice,
    profileDir: join(config.dataDir, "office-profile"),
    timeoutMs: config.export.convertTimeoutMs,
    log,
  });
  const parts: JobParts = {
    get consumers() {
      return consumers;
    },
    stopPeriodicTasks() {
      for (const stop of periodic.splice(0)) stop();
    },
    async stop(drainMs) {
      await Promise.all(consumers.map((consumer) => consumer.stop(drainMs)));
      await templates.close();
      await converter.close();
      await Promise.all([...senders.values()].map((sender) => sender.close()));
    },
  };
  try {
    senders = await loadChannelSenders(platform.bootstrap?.channels ?? [], log);
    // A lease outlives the job's timeout, so a send still running after it cannot be doubled.
    const leaseSeconds = Math.ceil(config.notify.sendTimeoutMs / 1000) + 2;
    if (config.export.officePrewarm && queues.includes("export")) {
      converter.warmUp().catch((error) => log.error({ err: error }, "LibreOffice could not be started"));
    }
    const handlers = createJobHandlers({
      delivery: { sql: db.sql, senders, leaseSeconds },
      thumbnails: { sql: db.sql, storage },
      export: { storage, templates, converter, timeZone: config.export.timeZone },
      feed: { sql: db.sql, log, env: process.env, staleAfterSeconds: config.feed.staleRunSeconds },
      sign: queues.includes("sign") ? await signDeps(config, platform) : undefined,
    });
    consumers = await startJobConsumers(broker, catalogue, handlers, queues, log, {
      concurrency: config.workerConcurrency,
    });
    if (queues.includes("files.thumbs")) {
      periodic.push(startBlobSweeper({ sql: db.sql, storage, log }, BLOB_SWEEP_INTERVAL_MS));
    }
    if (queues.includes(FEED_SYNC_QUEUE)) periodic.push(startFeedScheduler({ sql: db.sql, broker, log }));
    if (queues.some((queue) => queue.startsWith("notify."))) {
      const longestDelayMs = Math.max(0, ...config.notify.retryDelaysMs);
      periodic.push(
        startPendingSweeper(
          { sql: db.sql, broker, log },
          {
            pendingAgeSeconds: config.notify.pendingAgeSeconds,
            maxAttempts: config.notify.retryDelaysMs.length + 1,
            staleRetryingSeconds: Math.ceil((longestDelayMs + config.notify.sendTimeoutMs) / 1000) + 60,
          },
          config.notify.sweepIntervalMs,
        ),
      );
    }
  } catch (error) {
    parts.stopPeriodicTasks();
    await parts.stop(0);
    throw error;
  }
  return parts;
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
