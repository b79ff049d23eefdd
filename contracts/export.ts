import { z } from "zod";
import { firstIssueMessage, type ValidationIssue } from "./validation-issue.ts";

/** Spec 001's export field: a datum's name and type, and how spreadsheets and documents use it. */
export const exportFieldSchema = z
  .object({
    name: z.string().min(1).max(200),
    type: z.string().max(50).optional(),
    /** Spreadsheets: the column's title when `label` is asked for. */
    label: z.string().max(200).optional(),
    /** Spreadsheets: a null cell is merged with the cell above. */
    merge: z.boolean().default(false),
    /** Documents: the repeating group a field belongs to, `A//B` for one nested level. */
    groupName: z.string().max(200).optional(),
  })
  .strict();

export type ExportField = z.infer<typeof exportFieldSchema>;

/** Spec 001's export formats: documents from a word-processing template, and spreadsheets. */
export const EXPORT_FORMATS = ["docx", "pdf", "png", "xlsx"] as const;
export const DOCUMENT_FORMATS = ["docx", "pdf", "png"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const cell = z.union([z.string().max(32_767), z.number(), z.boolean(), z.null()]);

/** Spreadsheet export: a grid of values, placed from (row, column), optionally under a title row. */
export const xlsxExportSchema = z.object({
  data: z.array(z.array(cell).max(1000)).max(100_000),
  fields: z.array(exportFieldSchema).max(1000).default([]),
  label: z.boolean().default(false),
  row: z.number().int().min(0).max(1_000_000).default(0),
  column: z.number().int().min(0).max(16_000).default(0),
});

export type XlsxExport = z.infer<typeof xlsxExportSchema>;

/** Most pages one image export answers with. */
export const MAX_IMAGE_PAGES = 50;

/** Document export: a template filled with a map of data, as a document or a page image. */
export const documentExportSchema = z.object({
  data: z.record(z.string().max(200), z.unknown()).default({}),
  fields: z.array(exportFieldSchema).max(1000).default([]),
  /** Images only: the 0-based page; absent means page 0 for a stream and every page for JSON. */
  page: z.number().int().min(0).max(10_000).optional(),
  /** Every page as a file (a JSON answer without `page`), rather than one. */
  allPages: z.boolean().default(false),
});

export type DocumentExport = z.infer<typeof documentExportSchema>;

/** What the gateway asks an `export` worker to render. */
export const exportJobSchema = z
  .object({
    format: z.enum(EXPORT_FORMATS),
    /** Where the template is: a URL the worker fetches under the operator's host rules. */
    templateUri: z.string().max(2048).optional(),
    xlsx: xlsxExportSchema.optional(),
    document: documentExportSchema.optional(),
    /** Where the outputs go: `<prefix>.<ext>`, or `<prefix>-<page>.png` per page. */
    outputPrefix: z.string().min(1).max(500),
    /**
     * The addresses the gateway that made the job serves the platform's file service at (PUBLIC_URL,
     * FILE_PUBLIC_URL): a template or image under `<address>/file/` is read from storage, whatever
     * the worker's own configuration says.
     */
    platformUrls: z.array(z.string().max(2048)).max(4).default([]),
  })
  .refine((job) => job.format !== "xlsx" || job.xlsx !== undefined, {
    message: "an xlsx export needs its data",
  })
  .refine((job) => job.format === "xlsx" || (job.document !== undefined && job.templateUri !== undefined), {
    message: "a document export needs a template and its data",
  });

export type ExportJob = z.infer<typeof exportJobSchema>;

/** One stored output of an export: the document, or one page's image. */
export const exportOutputSchema = z.object({
  key: z.string(),
  bytes: z.number().int(),
  sha1: z.string(),
  sha256: z.string(),
  /** Images: the 0-based page shown. */
  page: z.number().int().optional(),
});

export type ExportOutput = z.infer<typeof exportOutputSchema>;

/** What an `export` worker answers: the outputs' type and where each is stored. */
export const exportResultSchema = z.object({ mime: z.string(), outputs: z.array(exportOutputSchema) });

export type ExportResult = z.infer<typeof exportResultSchema>;

export const EXPORT_MIME: Record<ExportFormat, string> = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pdf: "application/pdf",
  png: "image/png",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

/** A broken export job, named as the caller sent it: the job's `xlsx` and `document` wrappers are the platform's. */
export function exportJobProblem(issues: readonly ValidationIssue[]): string {
  const unwrapped = issues.map((issue) => ({
    ...issue,
    path: issue.path.filter((p) => p !== "xlsx" && p !== "document"),
  }));
  return firstIssueMessage(unwrapped, { root: "parameters" });
}
