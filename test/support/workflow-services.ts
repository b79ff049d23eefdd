import assert from "node:assert/strict";
import { bootstrapWorkflowVersionSchema } from "../../contracts/bootstrap.ts";
import { Grant } from "../../contracts/scopes.ts";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { upsertTenant } from "../../identity/tenant-store.ts";
import { TokenDenylist } from "../../identity/token-denylist.ts";
import { upsertUser } from "../../identity/user-store.ts";
import type { Database } from "../../runtime/database.ts";
import { StartableApps } from "../../workflow/startable-apps.ts";
import { TaskLinks } from "../../workflow/task-links.ts";
import { deployTenantWorkflow } from "../../workflow/workflow-admin.ts";
import type { WorkflowCaller } from "../../workflow/workflow-caller.ts";
import type { WorkflowDeps } from "../../workflow/workflow-deps.ts";
import { migratedDatabase, type TestMode } from "./platform.ts";
import { silentLogger } from "./wait.ts";

/** Who a call of the workflow's services acts as: a user of a tenant, or a sys token (naming a user or not). */
export type CallerSpec =
  | { user: string; workflowCode?: string; test?: boolean }
  | { sys: true; user?: string; workflowCode?: string; test?: boolean; domain?: string };

/** The workflow's services on a migrated database: its tenants and users, with callers made as the gateway makes them. */
export interface WorkflowWorld {
  db: Database;
  /** The deps of the formal data mode, answering `uri`s under `/apis/v2`. */
  deps: WorkflowDeps;
  tenantId(domain?: string): string;
  userId(account: string, domain?: string): string;
  caller(spec: CallerSpec): WorkflowCaller;
  /** Deploys one version of an app of the first tenant, on line for formal data and, with `beta`, for test data. */
  deploy(
    code: string,
    definition: unknown,
    app?: { name?: string; tags?: string },
    beta?: boolean,
  ): Promise<void>;
  close(): Promise<void>;
}

const NOW = Math.floor(Date.now() / 1000);

/**
 * A migrated database of the mode with the tenants (the first one the callers' by default) and
 * their users, `[domain, account, name]`; what the workflow's services need and nothing else.
 */
export async function workflowWorld(
  mode: TestMode,
  tenants: readonly { domain: string; name: string }[],
  users: readonly (readonly [domain: string, account: string, name: string])[],
): Promise<WorkflowWorld> {
  const { db, close } = await migratedDatabase(mode);
  try {
    const tenantIds = new Map<string, string>();
    for (const tenant of tenants) tenantIds.set(tenant.domain, (await upsertTenant(db.sql, tenant)).id);
    for (const [tenant, account, name] of users)
      await upsertUser(db.sql, { tenant, account, name, mailEnabled: false });
    const userIds = new Map<string, string>();
    for (const row of await db.sql<{ id: string; account: string; domain: string }[]>`
      select users.id, users.account, tenants.domain from users join tenants on tenants.id = users.tenant_id`)
      userIds.set(`${row.account}@${row.domain}`, row.id);
    const home = tenants[0]!.domain;
    const tenantId = (domain = home) => tenantIds.get(domain) ?? assert.fail(`no tenant ${domain}`);
    const userId = (account: string, domain = home) =>
      userIds.get(`${account}@${domain}`) ?? assert.fail(`no user ${account}@${domain}`);
    const deps: WorkflowDeps = {
      sql: db.sql,
      apps: new StartableApps(db.sql, db.changes),
      taskLinks: new TaskLinks(db.sql, new TokenDenylist(db.sql, silentLogger)),
      apiBase: "http://127.0.0.1/apis/v2",
      jsonMaxDepth: 32,
    };
    return {
      db,
      deps,
      tenantId,
      userId,
      caller(spec) {
        const sys = "sys" in spec;
        const domain = ("domain" in spec ? spec.domain : undefined) ?? home;
        const user = spec.user === undefined ? undefined : userId(spec.user, domain);
        return {
          token: {
            clientId: spec.workflowCode ? `${spec.workflowCode}-app` : "portal",
            userId: sys ? undefined : user,
            tenantId: tenantId(domain),
            grant: sys ? Grant.ClientCredentials : Grant.AuthorizationCode,
            kind: sys ? "sys" : "user",
            scopes: [],
            jti: "j",
            issuedAt: NOW,
            expiresAt: NOW + 3600,
          },
          tenantId: tenantId(domain),
          test: spec.test ?? false,
          sys,
          userId: user,
          workflowCode: spec.workflowCode,
        };
      },
      async deploy(code, definition, app = {}, beta = false) {
        const version = bootstrapWorkflowVersionSchema.parse({ definition, online: true, beta });
        await deployTenantWorkflow(db, home, code, { name: code, ...app }, version);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Asserts that `call` is refused with this errno and ecode of spec 001 (and a message matching `message`). */
export async function assertRefused(
  call: Promise<unknown>,
  [errno, ecode]: [number, string],
  what = "",
  message?: RegExp,
): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof WorkflowRefusal, `${what}: ${error}`);
    assert.deepEqual([error.errno, error.refusal], [errno, ecode], `${what}: ${error.message}`);
    if (message) assert.match(error.message, message, what);
    return true;
  });
}
