import { z } from "zod";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { APPLICATION_GRANTS, scopeNamed } from "../../contracts/scopes.ts";
import { setApplicationEnabled } from "../../identity/access-control.ts";
import {
  applicationDetails,
  approveApplicationAccess,
  newApplicationSecret,
} from "../../identity/application-admin.ts";
import { applicationList, tenantList } from "../../identity/operator-lists.ts";
import { pageOf } from "../admin-paging.ts";
import type { GatewayUses } from "../gateway-env.ts";
import { applicationsView, applicationView, newSecretView, tenantsView } from "./applications-views.tsx";
import {
  CONSOLE_PAGE_SIZE,
  type ConsoleApp,
  type ConsoleContext,
  checked,
  consolePage,
  href,
  pageKey,
  pageSession,
  redirectWith,
  render,
} from "./console-page.ts";

const domainSchema = z.string().min(1).max(253);
const idSchema = z.string().min(1).max(64);
const accessSchema = z.object({
  scopes: z
    .array(
      z
        .string()
        .max(64)
        .refine((name) => scopeNamed(name) !== undefined, "not a scope of the platform"),
    )
    .max(200),
  grants: z.array(z.enum(APPLICATION_GRANTS)).max(APPLICATION_GRANTS.length),
});

/** Tenants and applications: the lists, one application's page, and what operators do to it. */
export function applicationPages(app: ConsoleApp, deps: GatewayUses<"db" | "log">) {
  const { db } = deps;
  const sql = db.sql;

  function idOf(c: ConsoleContext): string {
    return checked(idSchema, c.req.param("id"), "id");
  }

  consolePage(app, "/tenants", {
    get: async (c) => {
      const [after = null] = pageKey(c, 1) ?? [];
      const rows = await tenantList(sql, { after, limit: CONSOLE_PAGE_SIZE + 1 });
      const page = pageOf(
        rows,
        CONSOLE_PAGE_SIZE,
        (row) => [row.domain],
        (row) => row,
      );
      const nextHref = (next: string) => href("/console/tenants", { after: next });
      return render(
        c,
        tenantsView({ session: pageSession(c), tenants: page.items, next: page.next, nextHref }),
      );
    },
  });

  consolePage(app, "/applications", {
    get: async (c) => {
      const tenant = c.req.query("tenant")
        ? checked(domainSchema, c.req.query("tenant"), "tenant")
        : undefined;
      const [after = null] = pageKey(c, 1) ?? [];
      const rows = await applicationList(sql, { tenant, after, limit: CONSOLE_PAGE_SIZE + 1 });
      if (!rows) throw new PlatformError(ErrorCode.NotFound, `No tenant ${tenant}.`);
      const page = pageOf(
        rows,
        CONSOLE_PAGE_SIZE,
        (row) => [row.id],
        (row) => row,
      );
      const nextHref = (next: string) => href("/console/applications", { tenant, after: next });
      const view = applicationsView({
        session: pageSession(c),
        tenant,
        applications: page.items,
        next: page.next,
        nextHref,
      });
      return render(c, view);
    },
  });

  consolePage(app, "/applications/:id", {
    get: async (c) => {
      const id = idOf(c);
      const application = await applicationDetails(db, id);
      if (!application) throw new PlatformError(ErrorCode.NotFound, `No application ${id}.`);
      return render(c, applicationView({ session: pageSession(c), application }));
    },
  });

  for (const [action, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    consolePage(app, `/applications/:id/${action}`, {
      post: async (c) => {
        const id = idOf(c);
        if (!(await setApplicationEnabled(db, id, enabled)))
          throw new PlatformError(ErrorCode.NotFound, `No application ${id}.`);
        deps.log.info({ application: id, enabled }, "application access changed in the console");
        const text = enabled
          ? `${id} is enabled: it gets tokens again.`
          : `${id} is disabled: it gets no token, and its tokens are refused.`;
        return redirectWith(c, `/console/applications/${encodeURIComponent(id)}`, { kind: "done", text });
      },
    });
  }

  consolePage(app, "/applications/:id/secret", {
    post: async (c) => {
      const id = idOf(c);
      const secret = await newApplicationSecret(db, id);
      if (!secret) throw new PlatformError(ErrorCode.NotFound, `No application ${id}.`);
      deps.log.info({ application: id }, "application secret rotated in the console");
      return render(c, newSecretView({ session: pageSession(c), id, secret }));
    },
  });

  consolePage(app, "/applications/:id/access", {
    post: async (c) => {
      const id = idOf(c);
      const form = c.get("form");
      const asked = checked(accessSchema, { scopes: form.all("scope"), grants: form.all("grant") });
      const access = await approveApplicationAccess(db, id, asked);
      if (!access) throw new PlatformError(ErrorCode.NotFound, `No application ${id}.`);
      deps.log.info(
        { application: id, scopes: access.scopes, grants: access.grants },
        "application access approved in the console",
      );
      const text = `${id} may now ask for ${access.scopes.length === 0 ? "no scope" : access.scopes.join(", ")}${
        access.grants ? ` with ${access.grants.join(", ")}` : ""
      }.`;
      return redirectWith(c, `/console/applications/${encodeURIComponent(id)}`, { kind: "done", text });
    },
  });
}
