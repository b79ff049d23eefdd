import { OpenAPIHono, z } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { locationListSchema, type SignJob, signJobSchema } from "../../contracts/signature.ts";
import { firstIssueMessage } from "../../contracts/validation-issue.ts";
import { keepFile } from "../../files/file-intake.ts";
import { timeOrderedId } from "../../runtime/time-ordered-id.ts";
import { fileUrl } from "../file-access.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { surface } from "../middleware/surface.ts";
import { readMultipart, storeUpload } from "../multipart-upload.ts";
import { serve } from "../operation.ts";
import { userContentHeaders } from "../user-content-headers.ts";

const SEAL_CODE = /^[A-Za-z0-9._-]{1,64}$/;

function badRequest(message: string): PlatformError {
  return new PlatformError(ErrorCode.InvalidArgument, message);
}

/** A form field holding a JSON list of location items, checked against spec 000's item. */
function locationsField(fields: Map<string, string>, name: string): SignJob["locations"] {
  const text = fields.get(name);
  if (text === undefined || text.trim() === "") return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw badRequest(`${name}: not valid JSON: ${(error as Error).message}`);
  }
  const parsed = locationListSchema.safeParse(json);
  if (!parsed.success) {
    throw badRequest(firstIssueMessage(parsed.error.issues, { under: name, brackets: true }));
  }
  return parsed.data;
}

function integerField(fields: Map<string, string>, name: string, allowed: (n: number) => boolean) {
  const text = fields.get(name);
  if (text === undefined || text.trim() === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || !allowed(value))
    throw badRequest(`${name}: ${JSON.stringify(text)} is not allowed`);
  return value;
}

/**
 * Spec 000's "Sign a file": the upload streams into file storage (the source file the QR code
 * points at), a `sign` worker seals it by request/reply, and the sealed PDF streams back.
 */
export function signatureRoutes(deps: GatewayUses<"config" | "db" | "jobs" | "oauth" | "seals" | "storage">) {
  const { seals, storage, config } = deps;
  const app = new OpenAPIHono<GatewayEnv>();
  app.use(surface("signature"));
  // Documented here, not validated by the framework: the body is read as it streams in.
  serve(app, {
    surface: "signature",
    method: "post",
    path: "/{eSignCode}",
    operationId: "sealPdf",
    tags: ["Signature"],
    token: requireToken(deps.oauth.accessTokens, { scopes: ["signature"], kind: "sys" }),
    summary: "Seal a PDF (and sign it); the answer is the sealed file",
    security: [{ bearer: [] }],
    request: {
      params: z.object({ eSignCode: z.string().max(64) }),
      body: {
        required: true,
        content: {
          "multipart/form-data": {
            schema: z.object({
              file: z.string().openapi({ format: "binary", description: "the PDF" }),
              locations: z.string().optional().openapi({ description: "JSON list of location items" }),
              keyword: z.string().optional(),
              keywordOrder: z.enum(["0", "1", "2"]).optional(),
              keywordSeq: z.string().optional(),
              qrCodeLocations: z.string().optional().openapi({ description: "JSON list of location items" }),
            }),
          },
        },
      },
    },
    responses: {
      200: {
        description: "the sealed PDF",
        content: { "application/pdf": { schema: z.string().openapi({ format: "binary" }) } },
      },
    },
    errors: [400, 401, 403, 404, 413, 415, 500, 503],
    meanings: {
      400: "malformed request: the message names the field",
      401: "ACCESS_TOKEN_EXPIRED: no valid access token",
      403: "not a sys token with the signature scope",
      404: "unknown seal code",
      413: "file too large",
      415: "not multipart/form-data",
      500: "the file cannot be sealed",
      503: "no sign worker answered in time",
    },
    ownInput: "all",
    handle: async (c) => {
      const code = c.req.param("eSignCode");
      if (!SEAL_CODE.test(code)) throw badRequest(`eSignCode: ${JSON.stringify(code)} is not a seal code`);
      const token = c.get("token");
      const seal = await seals.find(code, token.tenantId);
      if (!seal)
        throw new PlatformError(ErrorCode.NotFound, `eSignCode: no seal ${code} for this application`);
      const fileId = timeOrderedId();
      const uploadKey = `uploads/${fileId}`;
      // Scratch until promoted: a document kept only for the request is never flushed to disk.
      const upload = await readMultipart(c, "file", (stream) =>
        storeUpload(storage, uploadKey, stream, config.sign.maxUploadBytes, { scratch: true }),
      ).catch(async (error: unknown) => {
        // A refused upload is removed here, as the `finally` below removes one that was read.
        await storage.remove(uploadKey);
        throw error;
      });
      let inputKey = uploadKey;
      const outputKey = `sealed/${fileId}.pdf`;
      try {
        if (!upload.file) throw badRequest('file: required (the PDF, as the multipart field "file")');
        const locations = locationsField(upload.fields, "locations");
        const qrCodeLocations = locationsField(upload.fields, "qrCodeLocations");
        const keyword = upload.fields.get("keyword") || undefined;
        if (!locations?.length && !keyword) throw badRequest("locations or keyword: one of them is required");
        const withQr = Boolean(qrCodeLocations?.length);
        const file = upload.file;
        // The QR code points at the source file, so the upload becomes a file of the file service;
        // its record is written while the worker seals, and only a sealed file keeps it.
        if (withQr) inputKey = await storage.promote(uploadKey, file.stored.sha256);
        const job = signJobSchema.safeParse({
          sealId: seal.id,
          sealVersion: seal.version,
          inputKey,
          outputKey,
          locations,
          keyword,
          keywordOrder: integerField(upload.fields, "keywordOrder", (n) => n === 0 || n === 1 || n === 2),
          keywordSeq: integerField(upload.fields, "keywordSeq", (n) => n >= 1 && n <= 10_000),
          qrCodeLocations,
          ...(withQr ? { qrContent: fileUrl(config, fileId) } : {}),
        });
        if (!job.success) {
          throw badRequest(firstIssueMessage(job.error.issues));
        }
        const sealing = () => deps.jobs.call("sign", job.data);
        const source = {
          id: fileId,
          name: file.filename,
          mime: "application/pdf",
          upload: file.stored,
          storageKey: inputKey,
          owner: { applicationId: token.clientId, tenantId: token.tenantId },
        };
        const result = withQr ? (await keepFile(deps.db.sql, source, sealing)).result : await sealing();
        const body = storage.readStream(result.outputKey, {
          onEnd: () => void storage.remove(result.outputKey),
        });
        return new Response(body, {
          status: 200,
          headers: {
            ...userContentHeaders("application/pdf", { filename: `sealed-${fileId}.pdf`, attachment: true }),
            "content-length": String(result.bytes),
            "x-seals": String(result.seals),
            "x-qr-codes": String(result.qrCodes),
          },
        });
      } catch (error) {
        await storage.remove(outputKey);
        throw error;
      } finally {
        // A blob stays for the file service (or, unreferenced, for the blob sweeper); a plain upload goes.
        if (inputKey === uploadKey) await storage.remove(uploadKey);
      }
    },
  });
  return app;
}
