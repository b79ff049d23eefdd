import { join } from "node:path";
import { jobCatalogue } from "../../contracts/jobs.ts";
import { TemplateSource } from "../../exports/template-source.ts";
import { DocumentThreads } from "../document-thread.ts";
import { loadedOnFirstJob, workerPart } from "../worker-part.ts";
import { OfficeConverter } from "./office-converter.ts";
import type { RenderWork } from "./render-work.ts";

/** Exports: templates fetched under the operator's host rules, and LibreOffice for PDF and images. */
export const exportPart = workerPart({
  jobs: ["export"],
  async start({ config, platform }) {
    const { db, storage, log } = platform;
    const templates = new TemplateSource({
      sql: db.sql,
      storage,
      publicUrls: [config.http.publicUrl, config.files.publicUrl],
      allowedHosts: config.export.templateHosts,
      maxBytes: config.export.templateMaxBytes,
      timeoutMs: config.export.timeoutMs,
      log,
    });
    const converter = new OfficeConverter({
      python: config.export.officePython,
      soffice: config.export.soffice,
      profileDir: join(config.dataDir, "office-profile"),
      timeoutMs: config.export.convertTimeoutMs,
      log,
    });
    const threads = new DocumentThreads<RenderWork, Uint8Array | number>({
      module: new URL("./render-work.ts", import.meta.url),
      threads: config.workerConcurrency ?? jobCatalogue.export.concurrency,
      heapMb: config.documentThreads.heapMb,
      // Within the job's timeout, so that the caller hears the refusal rather than a timeout.
      timeoutMs: Math.min(config.documentThreads.timeoutMs, Math.floor(config.export.timeoutMs * 0.8)),
      subject: "the export",
    });
    if (config.export.officePrewarm) {
      converter.warmUp().catch((error) => log.error({ err: error }, "LibreOffice could not be started"));
    }
    return {
      handlers: {
        export: loadedOnFirstJob(async () =>
          (await import("./export-document.ts")).exportDocument({
            storage,
            templates,
            converter,
            archiveLimits: config.export.archive,
            timeZone: config.export.timeZone,
            threads,
          }),
        ),
      },
      async close() {
        await templates.close();
        await converter.close();
        await threads.close();
      },
    };
  },
});
