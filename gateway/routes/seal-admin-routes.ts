import { OpenAPIHono, z } from "@hono/zod-openapi";
import { missingSealError, type SealRecord, sealImageOf, sealPage } from "../../seals/seal-service.ts";
import { afterKey, pageOf, pageQuery, pageSchema } from "../admin-paging.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";
import { userContentHeaders } from "../user-content-headers.ts";

/** Seal images are PNGs: the bootstrap refuses anything else. */
const SEAL_CONTENT_TYPE = "image/png";

const sealSchema = z
  .object({
    code: z.string(),
    tenant: z
      .string()
      .nullable()
      .openapi({ description: "its tenant's domain; null for a platform-wide seal" }),
    name: z.string(),
    width: z.number(),
    height: z.number(),
    version: z.number().int().openapi({ description: "goes up with every change of the seal" }),
    updatedAt: z.string(),
    size: z.number().int().openapi({ description: "the image's size in bytes" }),
    contentType: z.literal(SEAL_CONTENT_TYPE),
  })
  .openapi("AdminSeal");

function sealView(seal: SealRecord): z.infer<typeof sealSchema> {
  const { updatedAt, ...fields } = seal;
  return { ...fields, updatedAt: updatedAt.toISOString(), contentType: SEAL_CONTENT_TYPE };
}

/** The operators' reads of seals: what each is, page by page, and one seal's image. */
export function sealAdminRoutes(deps: GatewayUses<"db">) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const security = [{ admin: [] }];

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/seals",
    operationId: "listSeals",
    tags: ["Admin"],
    summary: "The seals, by code then tenant (platform-wide ones first), without their images",
    security,
    request: { query: pageQuery(2) },
    responses: {
      200: {
        description: "a page of seals",
        content: { "application/json": { schema: pageSchema(sealSchema, "AdminSealPage") } },
      },
    },
    errors: [400, 503],
    operatorToken: true,
    handle: async (c) => {
      const { limit, after } = c.req.valid("query");
      const key = afterKey(after, 2);
      const rows = await sealPage(sql, key && { code: key[0]!, tenant: key[1]! }, limit + 1);
      c.header("Cache-Control", "no-store");
      return c.json(
        pageOf(rows, limit, (row) => [row.code, row.tenant ?? ""], sealView),
        200,
      );
    },
  });

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/seals/{code}/image",
    operationId: "getSealImage",
    tags: ["Admin"],
    summary: "A seal's image (a tenant's with `tenant`, else the platform-wide one)",
    security,
    request: {
      params: z.object({ code: z.string().max(64) }),
      query: z.object({ tenant: z.string().min(1).max(253).optional() }),
    },
    responses: {
      200: {
        description: "the PNG",
        content: { [SEAL_CONTENT_TYPE]: { schema: z.string().openapi({ format: "binary" }) } },
      },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such seal, or no such tenant" },
    operatorToken: true,
    handle: async (c) => {
      const { code } = c.req.valid("param");
      const { tenant } = c.req.valid("query");
      const seal = await sealImageOf(sql, code, tenant);
      if ("missing" in seal) throw missingSealError(seal, code, tenant);
      return c.body(new Uint8Array(seal.image), 200, {
        ...userContentHeaders(SEAL_CONTENT_TYPE),
        "cache-control": "no-store",
      });
    },
  });
  return app;
}
