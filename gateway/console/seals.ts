import type { Context } from "hono";
import { z } from "zod";
import { bootstrapSealSchema, SEAL_IMAGE_MAX_BYTES } from "../../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { ConfigError } from "../../runtime/config.ts";
import {
  type SealMissing,
  sealImageOf,
  sealPage,
  uploadSeal,
  withdrawSeal,
} from "../../seals/seal-service.ts";
import { pageOf } from "../admin-paging.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { readMultipart } from "../multipart-upload.ts";
import {
  CONSOLE_PAGE_SIZE,
  type ConsoleApp,
  checked,
  consolePage,
  errorPage,
  href,
  pageKey,
  pageSession,
  redirectWith,
  render,
} from "./console-page.ts";
import { sealsView } from "./seals-views.tsx";
import { csrfMatches } from "./sessions.ts";
import { bytesOf } from "./upload-bytes.ts";

/** The upload's path: its form is multipart, its CSRF token read among its fields. */
export const SEAL_UPLOAD_PATH = "/console/seals/upload";

const sealKeySchema = z.object({
  code: z.string().min(1).max(64),
  tenant: z.string().min(1).max(253).optional(),
});

/** Seals: the list with each image, an upload (as the bootstrap file's seals are applied), a withdrawal. */
export function sealPages(app: ConsoleApp, deps: GatewayUses<"db" | "log" | "seals">) {
  const { seals } = deps;
  const sql = deps.db.sql;
  const changeDeps = { sql, seals, log: deps.log, changes: deps.db.changes };
  const notFound = ({ missing }: SealMissing, code: string, tenant: string | undefined) =>
    new PlatformError(
      ErrorCode.NotFound,
      missing === "tenant" ? `No tenant ${tenant}.` : `No seal ${code}${tenant ? ` of ${tenant}` : ""}.`,
    );

  consolePage(app, "/seals", {
    get: async (c) => {
      const key = pageKey(c, 2);
      const rows = await sealPage(sql, key && { code: key[0]!, tenant: key[1]! }, CONSOLE_PAGE_SIZE + 1);
      const page = pageOf(
        rows,
        CONSOLE_PAGE_SIZE,
        (row) => [row.code, row.tenant ?? ""],
        (row) => row,
      );
      const view = sealsView({
        session: pageSession(c),
        seals: page.items,
        next: page.next,
        nextHref: (next) => href("/console/seals", { after: next }),
        uploadPath: SEAL_UPLOAD_PATH,
        maxBytes: SEAL_IMAGE_MAX_BYTES,
      });
      return render(c, view);
    },
  });

  consolePage(app, "/seals/image", {
    get: async (c) => {
      const { code, tenant } = checked(sealKeySchema, {
        code: c.req.query("code"),
        tenant: c.req.query("tenant") || undefined,
      });
      const seal = await sealImageOf(sql, code, tenant);
      if ("missing" in seal) throw notFound(seal, code, tenant);
      return c.body(new Uint8Array(seal.image), 200, { "content-type": "image/png" });
    },
  });

  consolePage(app, "/seals/upload", {
    post: async (c) => {
      // The console's context is the gateway's with more variables; the reader uses none of them.
      const request = c as unknown as Context<GatewayEnv>;
      const upload = await readMultipart(request, "image", (stream) => bytesOf(stream, SEAL_IMAGE_MAX_BYTES));
      const field = (name: string) => upload.fields.get(name) || undefined;
      if (!csrfMatches(c.get("session"), field("csrf")))
        return errorPage(c, 403, "The form's token is missing or stale: reload the page and try again.");
      if (!upload.file) throw new PlatformError(ErrorCode.InvalidArgument, "image: choose a PNG file");
      const entry = {
        code: field("code"),
        name: field("name"),
        ...(field("tenant") ? { tenant: field("tenant") } : {}),
        width: Number(field("width")),
        height: Number(field("height")),
        image: `data:image/png;base64,${upload.file.stored.toString("base64")}`,
      };
      try {
        await uploadSeal(changeDeps, checked(bootstrapSealSchema, entry));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return redirectWith(c, "/console/seals", { kind: "error", text: error.message });
      }
      deps.log.info({ seal: entry.code, tenant: entry.tenant }, "seal uploaded in the console");
      const text = `Seal ${entry.code}${entry.tenant ? ` of ${entry.tenant}` : ""} is uploaded.`;
      return redirectWith(c, "/console/seals", { kind: "done", text });
    },
  });

  consolePage(app, "/seals/withdraw", {
    post: async (c) => {
      const form = c.get("form");
      const { code, tenant } = checked(sealKeySchema, {
        code: form.get("code"),
        tenant: form.get("tenant") || undefined,
      });
      const withdrawn = await withdrawSeal(changeDeps, code, tenant);
      if ("missing" in withdrawn) throw notFound(withdrawn, code, tenant);
      deps.log.info({ seal: code, tenant }, "seal withdrawn in the console");
      const text = `Seal ${code}${tenant ? ` of ${tenant}` : ""} is withdrawn.`;
      return redirectWith(c, "/console/seals", { kind: "done", text });
    },
  });
}
