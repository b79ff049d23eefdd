import { createReadStream } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import {
  type DocumentExport,
  EXPORT_MIME,
  type ExportJob,
  type ExportOutput,
  type ExportResult,
  MAX_IMAGE_PAGES,
} from "../../contracts/export.ts";
import type { TemplateSource } from "../../exports/template-source.ts";
import type { FileStorage } from "../../runtime/storage/file-storage.ts";
import { type DocumentThreads, ownBuffer } from "../document-thread.ts";
import type { JobContext, JobOutcome } from "../job-runner.ts";
import { type ArchiveLimits, checkArchive } from "./archive-limits.ts";
import { fieldTypesOf, imageSourcesIn, loadImages } from "./docx-images.ts";
import type { OfficeConverter } from "./office-converter.ts";
import { renderPages } from "./pdf-pages.ts";
import type { Rendered, RenderWork } from "./render-work.ts";

export interface ExportDeps {
  storage: FileStorage;
  templates: TemplateSource;
  converter: OfficeConverter;
  /** What a template may inflate to: checked before any parser opens it. */
  archiveLimits: ArchiveLimits;
  /** The zone dates in documents and spreadsheets are shown in. */
  timeZone: string;
  /** Where documents are rendered and PDFs read: never on the event loop that serves requests. */
  threads: DocumentThreads<RenderWork, Uint8Array | number>;
}

/**
 * Renders in a document thread. The input's bytes (fetched for this job alone, never used here
 * again) are handed over rather than copied.
 */
async function render<Work extends RenderWork>(
  deps: ExportDeps,
  input: Work,
  signal: AbortSignal,
): Promise<Rendered<Work["kind"]>> {
  const transfer: ArrayBuffer[] = [];
  const handed = (bytes: Uint8Array) => {
    const owned = ownBuffer(bytes);
    if (!transfer.includes(owned.buffer)) transfer.push(owned.buffer);
    return owned;
  };
  const sent: RenderWork =
    input.kind === "docx"
      ? {
          ...input,
          template: handed(input.template),
          images: new Map(
            [...input.images].map(([key, image]) => [
              key,
              { ...image, bytes: handed(image.bytes) as Buffer },
            ]),
          ),
        }
      : input.kind === "xlsx"
        ? { ...input, template: input.template && handed(input.template) }
        : { ...input, pdf: handed(input.pdf) };
  return (await deps.threads.run(sent, { transfer, signal })) as Rendered<Work["kind"]>;
}

/** A document thread's bytes as a Buffer, without a copy. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The `export` job: fetches the template, renders the document (PDF and page images through
 * LibreOffice) and stores each output as a blob of the file service, so the gateway can answer
 * with file links or the stream, answering where they are.
 */
export function exportDocument(deps: ExportDeps) {
  return async (job: ExportJob, context: JobContext): Promise<JobOutcome<ExportResult>> => {
    try {
      const template = job.templateUri
        ? await deps.templates.fetch(job.templateUri, "template", job.platformUrls)
        : undefined;
      if (template) await checkArchive(template, deps.archiveLimits);
      const outputs =
        job.format === "xlsx"
          ? [
              await store(
                deps.storage,
                `${job.outputPrefix}.xlsx`,
                await spreadsheet(deps, job, template, context.signal),
              ),
            ]
          : await documentOutputs(deps, job, template!, job.document!, context.signal);
      const reply: ExportResult = { mime: EXPORT_MIME[job.format], outputs };
      return { outcome: "done", reply };
    } catch (error) {
      // What the platform refused (a missing template, a broken one, a source out of reach) is
      // answered to the caller, who waits for it; a replay of the job would help nobody.
      if (error instanceof PlatformError)
        return { outcome: "refused", reason: error.message, code: error.code };
      context.log.error({ err: error }, "export failed");
      return {
        outcome: "fail",
        reason: `export failed: ${(error as Error).message}`,
        code: ErrorCode.Unprocessable,
      };
    }
  };
}

async function spreadsheet(
  deps: ExportDeps,
  job: ExportJob,
  template: Buffer | undefined,
  signal: AbortSignal,
): Promise<Buffer> {
  try {
    return asBuffer(
      await render(deps, { kind: "xlsx", request: job.xlsx!, template, timeZone: deps.timeZone }, signal),
    );
  } catch (error) {
    // A workbook too large or too complex for its thread is refused as such.
    if (error instanceof PlatformError) throw error;
    throw new PlatformError(
      ErrorCode.Unprocessable,
      `the spreadsheet could not be made: ${(error as Error).message}`,
    );
  }
}

async function documentOutputs(
  deps: ExportDeps,
  job: ExportJob,
  template: Buffer,
  request: DocumentExport,
  signal: AbortSignal,
): Promise<ExportOutput[]> {
  const fieldTypes = fieldTypesOf(request.fields);
  const images = await loadImages(imageSourcesIn(request.data, fieldTypes), (uri) =>
    deps.templates.fetch(uri, "image", job.platformUrls),
  );
  const docx = asBuffer(
    await render(
      deps,
      {
        kind: "docx",
        template,
        data: request.data,
        fieldTypes,
        images,
        timeZone: deps.timeZone,
      },
      signal,
    ),
  );
  if (job.format === "docx") return [await store(deps.storage, `${job.outputPrefix}.docx`, docx)];

  const dir = await mkdtemp(join(tmpdir(), "open-platform-export-"));
  try {
    const docxPath = join(dir, "document.docx");
    const pdfPath = join(dir, "document.pdf");
    await writeFile(docxPath, docx);
    await deps.converter.convert(docxPath, pdfPath);
    if (job.format === "pdf") return [await storeFile(deps.storage, `${job.outputPrefix}.pdf`, pdfPath)];

    const pages = await render(deps, { kind: "pages", pdf: await readFile(pdfPath) }, signal);
    const first = request.page ?? 0;
    if (first >= pages) {
      throw new PlatformError(
        ErrorCode.InvalidArgument,
        `page: ${first} is past the document's last page (${pages} page${pages === 1 ? "" : "s"}, counted from 0)`,
      );
    }
    const last =
      request.allPages && request.page === undefined ? Math.min(pages, MAX_IMAGE_PAGES) - 1 : first;
    const images = await renderPages(pdfPath, dir, first, last);
    const outputs: ExportOutput[] = [];
    for (const image of images) {
      const stored = await storeFile(deps.storage, `${job.outputPrefix}-${image.page}.png`, image.path);
      outputs.push({ ...stored, page: image.page });
    }
    return outputs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function store(storage: FileStorage, key: string, bytes: Buffer): Promise<ExportOutput> {
  return promote(storage, await storage.write(key, Readable.from([bytes]), Number.POSITIVE_INFINITY));
}

async function storeFile(storage: FileStorage, key: string, path: string): Promise<ExportOutput> {
  return promote(storage, await storage.write(key, createReadStream(path), Number.POSITIVE_INFINITY));
}

/** Outputs are kept as content-addressed blobs, like uploads, so a file record can point at them. */
async function promote(
  storage: FileStorage,
  stored: Awaited<ReturnType<FileStorage["write"]>>,
): Promise<ExportOutput> {
  return {
    key: await storage.promote(stored.key, stored.sha256),
    bytes: stored.size,
    sha1: stored.sha1,
    sha256: stored.sha256,
  };
}
