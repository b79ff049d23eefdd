import { join } from "node:path";
import { TemplateSource } from "../../runtime/template-source.ts";
import { loadedOnFirstJob, workerPart } from "../worker-part.ts";
import { OfficeConverter } from "./office-converter.ts";

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
          }),
        ),
      },
      async close() {
        await templates.close();
        await converter.close();
      },
    };
  },
});
