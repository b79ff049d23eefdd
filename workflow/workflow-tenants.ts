import { ErrorCode, localizedError } from "../contracts/errors.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { userIdsByCodes } from "../directory/positions.ts";
import type { AccessClaims } from "../identity/access-tokens.ts";
import { type Tenant, tenantByDomain } from "../identity/tenants.ts";
import { type ControlChanges, forgetOnChanges } from "../runtime/control-changes.ts";
import type { Queryable } from "../runtime/database.ts";
import { TtlCache } from "../runtime/ttl-cache.ts";

/** Tenants change rarely; a renamed domain takes effect within this window. */
const TENANT_CACHE_MS = 30_000;
/** How long a named account's id is remembered: the longest an account the feed disabled stays nameable. */
const NAMED_USER_CACHE_MS = 5_000;

/** The user a sys token names (account, `account@domain` read by the tenant, or id), or a refusal. */
export async function namedUser(sql: Queryable, tenantId: string, code: string): Promise<string> {
  const [id] = await userIdsByCodes(sql, tenantId, [code]);
  if (!id) throw new WorkflowRefusal("USER_NOT_FOUND", `no user ${code}`);
  return id;
}

/**
 * The tenant a call of spec 001 acts on. A token of an Enterprise or Workflow application (and a
 * user token) carries its tenant and sees no other; a Global application names the tenant with
 * `code@domain` or the `domain` parameter.
 */
export class WorkflowTenants {
  private readonly byDomain = new TtlCache<Tenant>(TENANT_CACHE_MS, 10_000);
  private readonly userIds = new TtlCache<string>(NAMED_USER_CACHE_MS, 10_000);

  constructor(
    private readonly sql: Queryable,
    changes: ControlChanges,
  ) {
    // An account disabled or enabled through the platform is named accordingly at once; one the
    // feed disabled, within the cache's window.
    forgetOnChanges(changes, ["user", "configuration"], () => this.userIds.clear()).catch(() => {});
  }

  /**
   * The id of the tenant's enabled account that `code` names (account or id), as a sys token's
   * `userId` does on nearly every call. An account's id never changes, so it is remembered briefly.
   */
  async userId(tenantId: string, code: string): Promise<string> {
    // A refusal is not remembered: an account made a moment later is named at once.
    return (await this.userIds.get(`${tenantId} ${code}`, () => namedUser(this.sql, tenantId, code)))!;
  }

  async resolve(token: AccessClaims, domain: string | undefined): Promise<string> {
    if (!domain) {
      if (token.tenantId) return token.tenantId;
      throw localizedError(ErrorCode.InvalidArgument, "tenantNeeded");
    }
    const tenant = await this.byDomain.get(domain, () => tenantByDomain(this.sql, domain));
    if (!tenant) throw localizedError(ErrorCode.NotFound, "noTenant", { domain });
    if (token.tenantId && token.tenantId !== tenant.id)
      throw localizedError(ErrorCode.PermissionDenied, "otherTenant", { domain });
    return tenant.id;
  }

  /**
   * An `idc` of 5.1/5.3: a code, or `code@domain` naming the tenant. Without a `domain`
   * parameter, a global application's code is read up to its last `@`; a tenant application's
   * `code@domain` is split only when the domain is a tenant's, since accounts may hold an `@`.
   */
  async resolveCode(
    token: AccessClaims,
    idc: string,
    domain: string | undefined,
  ): Promise<{ tenantId: string; code: string }> {
    const at = idc.lastIndexOf("@");
    if (domain || at < 0) return { tenantId: await this.resolve(token, domain), code: idc };
    const suffix = idc.slice(at + 1);
    if (!token.tenantId) return { tenantId: await this.resolve(token, suffix), code: idc.slice(0, at) };
    const named = await this.byDomain.get(suffix, () => tenantByDomain(this.sql, suffix));
    if (!named) return { tenantId: token.tenantId, code: idc };
    return { tenantId: await this.resolve(token, suffix), code: idc.slice(0, at) };
  }
}
