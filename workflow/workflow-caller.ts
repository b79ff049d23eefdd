import type { AccessClaims } from "../identity/access-tokens.ts";
import type { ApplicationCache } from "../identity/application-cache.ts";
import type { Queryable } from "../runtime/database.ts";
import { namedUser, type WorkflowTenants } from "./workflow-tenants.ts";

/** Who a workflow call acts for, in which tenant and data mode. */
export interface WorkflowCaller {
  token: AccessClaims;
  tenantId: string;
  test: boolean;
  sys: boolean;
  /** The user: a user token's own; for a sys token, the `userId` parameter's, when given. */
  userId: string | undefined;
  /** A Workflow application's own workflow: its token sees that workflow only. */
  workflowCode: string | undefined;
}

/** Resolves the caller of a workflow operation from its token and `domain`/`userId` parameters. */
export async function workflowCaller(
  applications: ApplicationCache,
  tenants: WorkflowTenants,
  token: AccessClaims,
  test: boolean,
  parameters: { domain?: string | undefined; userId?: string | undefined },
): Promise<WorkflowCaller> {
  const sys = token.kind === "sys";
  let tenantId: string;
  let userId = sys ? undefined : token.userId;
  // `*` names no one user: 4.5's `dismiss` takes it for every user.
  if (sys && parameters.userId && parameters.userId !== "*") {
    // A global application names a user as account@domain, which also names the tenant.
    const named = await tenants.resolveCode(token, parameters.userId, parameters.domain);
    tenantId = named.tenantId;
    userId = await tenants.userId(tenantId, named.code);
  } else {
    tenantId = await tenants.resolve(token, parameters.domain);
  }
  const application = await applications.get(token.clientId);
  return {
    token,
    tenantId,
    test,
    sys,
    userId,
    workflowCode: application?.type === "workflow" ? (application.workflowCode ?? undefined) : undefined,
  };
}

/**
 * The user a call is about: the user token's own, or the one a sys form's path names (account or
 * id, an enabled user of the caller's tenant).
 */
export async function subjectOf(
  sql: Queryable,
  caller: WorkflowCaller,
  named: string | undefined,
): Promise<string> {
  return named === undefined ? caller.userId! : namedUser(sql, caller.tenantId, named);
}
