import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { GatewayEnv } from "../gateway-env.ts";
import { serve } from "../operation.ts";

/** `/openapi.json`: the document of every operation registered on `app`, the gateway. */
export function openApiDocumentRoute(app: OpenAPIHono<GatewayEnv>, publicUrl: string) {
  // Built on first request, once every route is registered, then served from memory.
  let openApiDocument: string | undefined;
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/openapi.json",
    operationId: "getOpenApiDocument",
    tags: ["Documentation"],
    summary: "This document: every operation the gateway serves",
    responses: {
      200: {
        description: "the OpenAPI 3.1 document",
        content: { "application/json": { schema: z.record(z.string(), z.unknown()) } },
      },
    },
    // It has no input; its answer is the document as built once, a string, not a value to check.
    ownInput: "all",
    handle: (c) => {
      openApiDocument ??= JSON.stringify(
        app.getOpenAPI31Document({
          openapi: "3.1.0",
          info: {
            title: "University open platform",
            version: "1.0.0",
            description:
              "OAuth2-protected APIs for third-party applications: electronic seals, notifications, workflows, files and exports. Each surface answers failures in its own envelope: spec 000's `{errno, error, total}` (notifications, signature), spec 001's `Response` (workflow, files, export, admin), RFC 6749's `{error, error_description}` (OAuth2).",
          },
          servers: [{ url: publicUrl }],
        }),
      );
      return c.body(openApiDocument, 200, { "content-type": "application/json" });
    },
  });
}
