import { Readable } from "node:stream";
import type { HandlerOutcome } from "../../contracts/broker.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { EXPORT_MIME, type ExportJob, type ExportResult } from "../../contracts/export.ts";
import type { FileStorage } from "../../runtime/storage/file-storage.ts";
import type { TemplateSource } from "../../runtime/template-source.ts";
import type { JobContext } from "../job-runner.ts";
import { renderXlsx } from "./xlsx-export.ts";

export interface ExportDeps {
  storage: FileStorage;
  templates: TemplateSource;
}

/**
 * The `export` job: fetches the template, renders the document and stores it as a blob of the
 * file service (so the gateway can answer with a file link or the stream), answering where it is.
 */
export function exportDocument(deps: ExportDeps) {
  return async (job: ExportJob, context: JobContext): Promise<HandlerOutcome> => {
    try {
      const template = job.templateUri ? await deps.templates.fetch(job.templateUri) : undefined;
      const bytes = await render(job, template);
      const stored = await deps.storage.write(
        job.outputKey,
        Readable.from([bytes]),
        Number.POSITIVE_INFINITY,
      );
      const blobKey = await deps.storage.promote(stored.key, stored.sha256);
      const reply: ExportResult & { sha1: string; sha256: string } = {
        outputKey: blobKey,
        bytes: stored.size,
        mime: EXPORT_MIME[job.format],
        sha1: stored.sha1,
        sha256: stored.sha256,
      };
      return { outcome: "done", reply };
    } catch (error) {
      if (error instanceof PlatformError) return { outcome: "fail", reason: error.message, code: error.code };
      context.log.error({ err: error }, "export failed");
      return {
        outcome: "fail",
        reason: `export failed: ${(error as Error).message}`,
        code: ErrorCode.Unprocessable,
      };
    }
  };
}

/** The document of the job's format; a format joins by adding its renderer here. */
async function render(job: ExportJob, template: Buffer | undefined): Promise<Buffer> {
  try {
    return await renderXlsx(job.xlsx!, template);
  } catch (error) {
    throw new PlatformError(
      ErrorCode.Unprocessable,
      `the spreadsheet could not be made: ${(error as Error).message}`,
    );
  }
}
