import type { Context } from "hono";
import { z } from "zod";
import {
  BPMN_MAX_CHARS,
  bootstrapWorkflowSchema,
  type DeployedVersionFields,
  deployedAppFieldsSchema,
  deployedVersionSchema,
} from "../../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import {
  deployTenantWorkflow,
  PROCESS_COUNT_CAP,
  processCountsOf,
  setTenantVersionOnline,
  tenantWorkflowApps,
  tenantWorkflowVersionBpmn,
} from "../../workflow/workflow-admin.ts";
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
  renderWithScripts,
  tenantSchema,
} from "./console-page.ts";
import { csrfMatches } from "./sessions.ts";
import { bytesOf } from "./upload-bytes.ts";
import { diagramView, workflowsView } from "./workflows-views.tsx";

/** The deployment's path: its form is multipart, its CSRF token read among its fields. */
export const WORKFLOW_UPLOAD_PATH = "/console/workflows/deploy";
/** Versions of each app the page shows, newest first. */
const VERSIONS_LISTED = 10;

const appKeySchema = z.object({ tenant: tenantSchema, app: bootstrapWorkflowSchema.shape.code });
const onlineSchema = appKeySchema.extend({
  version: z.uuid(),
  mode: z.enum(["formal", "test"]),
  online: z.enum(["true", "false"]),
});

/**
 * A deployment as a file holds it: a BPMN document, or JSON that is a definition (with its
 * `graph`) or a deployment's fields (with `definition` or `bpmn`, and the app's fields as `app`).
 * A box ticked in the form puts the version on line; one left empty leaves it as the file says,
 * else as it is (off line when new).
 */
function deploymentOfFile(
  text: string,
  form: { online: boolean; beta: boolean; name: string | undefined },
): { version: DeployedVersionFields; app: z.infer<typeof deployedAppFieldsSchema> | undefined } {
  const given = {
    ...(form.online ? { online: true } : {}),
    ...(form.beta ? { beta: true } : {}),
    ...(form.name === undefined ? {} : { name: form.name }),
  };
  if (text.trimStart().startsWith("<"))
    return { version: checked(deployedVersionSchema, { ...given, bpmn: text }, "file"), app: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PlatformError(
      ErrorCode.InvalidArgument,
      `file: neither BPMN nor JSON (${(error as Error).message})`,
    );
  }
  const object = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : {};
  if (!("definition" in object || "bpmn" in object))
    return {
      version: checked(deployedVersionSchema, { definition: parsed, ...given }, "file"),
      app: undefined,
    };
  const { app, ...fields } = object as { app?: unknown };
  return {
    version: checked(deployedVersionSchema, { ...fields, ...given }, "file"),
    app: app === undefined ? undefined : checked(deployedAppFieldsSchema, app, "file.app"),
  };
}

/** A tenant's workflow apps and versions: deploying from a file, taking versions on and off line, diagrams. */
export function workflowPages(app: ConsoleApp, deps: GatewayUses<"db" | "log">) {
  const sql = deps.db.sql;
  const listHref = (tenant: string) => href("/console/workflows", { tenant });

  consolePage(app, "/workflows", {
    get: async (c) => {
      const tenant = c.req.query("tenant")
        ? checked(tenantSchema, c.req.query("tenant"), "tenant")
        : undefined;
      const session = pageSession(c);
      const maxBytes = BPMN_MAX_CHARS;
      if (tenant === undefined) {
        const empty = { apps: [], versionsOf: new Map(), processCounts: new Map(), next: null };
        const view = { ...empty, session, tenant, countCap: PROCESS_COUNT_CAP, maxBytes, nextHref: () => "" };
        return render(c, workflowsView(view));
      }
      const [after = null] = pageKey(c, 1) ?? [];
      const { apps, versionsOf } = await tenantWorkflowApps(sql, tenant, after, CONSOLE_PAGE_SIZE);
      const page = pageOf(
        apps,
        CONSOLE_PAGE_SIZE,
        (row) => [row.code],
        (row) => row,
      );
      const listed = new Map(
        [...versionsOf].map(([id, versions]) => [id, versions.slice(0, VERSIONS_LISTED)]),
      );
      const processCounts = await processCountsOf(
        sql,
        [...listed.values()].flat().map((version) => version.id),
      );
      const view = workflowsView({
        session,
        tenant,
        apps: page.items,
        versionsOf: listed,
        processCounts,
        countCap: PROCESS_COUNT_CAP,
        next: page.next,
        nextHref: (next) => href("/console/workflows", { tenant, after: next }),
        maxBytes,
      });
      return render(c, view);
    },
  });

  consolePage(app, "/workflows/deploy", {
    post: async (c) => {
      // The console's context is the gateway's with more variables; the reader uses none of them.
      const request = c as unknown as Context<GatewayEnv>;
      const upload = await readMultipart(request, "file", (stream) =>
        bytesOf(stream, BPMN_MAX_CHARS, "file"),
      );
      const field = (name: string) => upload.fields.get(name) || undefined;
      if (!csrfMatches(c.get("session"), field("csrf")))
        return errorPage(c, 403, "The form's token is missing or stale: reload the page and try again.");
      const tenant = checked(tenantSchema, field("tenant"), "tenant");
      const code = checked(bootstrapWorkflowSchema.shape.code, field("code"), "code");
      try {
        if (!upload.file || upload.file.stored.length === 0)
          throw new PlatformError(ErrorCode.InvalidArgument, "file: choose a BPMN or JSON file");
        const { version, app: fields } = deploymentOfFile(upload.file.stored.toString("utf8"), {
          online: field("online") === "true",
          beta: field("beta") === "true",
          name: field("name"),
        });
        const deployed = await deployTenantWorkflow(deps.db, tenant, code, fields, version);
        deps.log.info(
          { tenant, app: code, version: deployed.version.id },
          "workflow version deployed in the console",
        );
        const { number, created } = deployed.version;
        const text = created
          ? `Version ${number} of ${code} is deployed.`
          : `That definition is version ${number} of ${code} already.`;
        return redirectWith(c, listHref(tenant), { kind: "done", text });
      } catch (error) {
        if (!(error instanceof PlatformError) || error.code !== ErrorCode.InvalidArgument) throw error;
        return redirectWith(c, listHref(tenant), { kind: "error", text: `Not deployed: ${error.message}` });
      }
    },
  });

  consolePage(app, "/workflows/online", {
    post: async (c) => {
      const form = c.get("form");
      const change = checked(onlineSchema, {
        tenant: form.get("tenant"),
        app: form.get("app"),
        version: form.get("version"),
        mode: form.get("mode"),
        online: form.get("online"),
      });
      const online = change.online === "true";
      await setTenantVersionOnline(deps.db, change.tenant, change.app, {
        versionId: change.version,
        test: change.mode === "test",
        online,
      });
      deps.log.info(change, "workflow version put on or off line in the console");
      const data = change.mode === "test" ? "test" : "formal";
      const text = `The version of ${change.app} is ${online ? "online" : "offline"} for ${data} data.`;
      return redirectWith(c, listHref(change.tenant), { kind: "done", text });
    },
  });

  consolePage(app, "/workflows/diagram", {
    get: async (c) => {
      const { tenant, app: code } = checked(appKeySchema, {
        tenant: c.req.query("tenant"),
        app: c.req.query("app"),
      });
      const versionId = checked(z.uuid(), c.req.query("version"), "version");
      const bpmn = await tenantWorkflowVersionBpmn(sql, tenant, code, versionId);
      return renderWithScripts(
        c,
        diagramView({ session: pageSession(c), tenant, app: code, versionId, bpmn }),
      );
    },
  });
}
