import { z } from "zod";

/** Spec 000's signature location item; distances are PDF points (1/72 inch), as a reader sees the page. */
export const locationItemSchema = z
  .object({
    pageNo: z.number().int().optional(),
    x: z.number().optional(),
    y: z.number().optional(),
    top: z.number().optional(),
    bottom: z.number().optional(),
    left: z.number().optional(),
    right: z.number().optional(),
    width: z.number().positive().max(10_000).optional(),
    height: z.number().positive().max(10_000).optional(),
  })
  .strict();

export type LocationItem = z.infer<typeof locationItemSchema>;

/** Location items per request field; a page has one seal at most, so more would be pointless. */
export const MAX_LOCATION_ITEMS = 1000;

export const locationListSchema = z.array(locationItemSchema).max(MAX_LOCATION_ITEMS);

/** Keyword search order of spec 000: 0 every match, 1 from the start, 2 from the end. */
export const KEYWORD_ORDERS = [0, 1, 2] as const;

/** What the gateway asks a `sign` worker to do. */
export const signJobSchema = z.object({
  sealId: z.uuid(),
  /** The seal's version as the gateway found it; a worker holding an older image reads it again. */
  sealVersion: z.number().int().min(1),
  /** Storage key of the uploaded PDF; the sealed file is written to `outputKey`. */
  inputKey: z.string().min(1).max(500),
  outputKey: z.string().min(1).max(500),
  locations: locationListSchema.optional(),
  keyword: z.string().min(1).max(200).optional(),
  keywordOrder: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(2),
  keywordSeq: z.number().int().min(1).max(10_000).default(1),
  qrCodeLocations: locationListSchema.optional(),
  /** What the QR code encodes: the address of the source file. */
  qrContent: z.string().max(2000).optional(),
});

export type SignJob = z.infer<typeof signJobSchema>;

/** What a `sign` worker answers: where the sealed file is, and what it holds. */
export const signResultSchema = z.object({
  outputKey: z.string(),
  /** Size of the sealed file, in bytes. */
  bytes: z.number().int(),
  pages: z.number().int(),
  seals: z.number().int(),
  qrCodes: z.number().int(),
});

export type SignResult = z.infer<typeof signResultSchema>;
