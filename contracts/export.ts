import { z } from "zod";

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

/** The formats exported so far; spec 001's docx, pdf and png join them. */
export const EXPORT_FORMATS = ["xlsx"] as const;
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

/** What the gateway asks an `export` worker to render. */
export const exportJobSchema = z
  .object({
    format: z.enum(EXPORT_FORMATS),
    /** Where the template is: a URL the worker fetches under the operator's host rules. */
    templateUri: z.string().max(2048).optional(),
    xlsx: xlsxExportSchema.optional(),
    outputKey: z.string().min(1).max(500),
  })
  .refine((job) => job.format !== "xlsx" || job.xlsx !== undefined, {
    message: "an xlsx export needs its data",
  });

export type ExportJob = z.infer<typeof exportJobSchema>;

export interface ExportResult {
  outputKey: string;
  bytes: number;
  mime: string;
}

export const EXPORT_MIME: Record<ExportFormat, string> = {
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};
