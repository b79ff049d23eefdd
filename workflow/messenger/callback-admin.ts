import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { tenantByDomain } from "../../identity/tenants.ts";
import type { Queryable } from "../../runtime/database.ts";
import { workflowAppByIdOrCode } from "../app-store.ts";
import type { CallbackSecrets } from "./callback-secrets.ts";
import {
  type AttemptRow,
  attemptsOf,
  type DeliveryRow,
  deadDeliveryPage,
  deliveryById,
  replayDead,
} from "./callback-store.ts";

export type { AttemptRow, DeliveryRow } from "./callback-store.ts";

/** The latest posts shown of a delivery. */
export const ATTEMPTS_SHOWN = 50;
/** Dead deliveries of an app replayed by one call; a call answering this many may be made again. */
export const REPLAY_MAX = 10_000;

/** A tenant's app named by its domain and code, or a 404 naming what is missing. */
async function namedApp(
  sql: Queryable,
  domain: string,
  code: string,
): Promise<{ tenantId: string; appId: string }> {
  const tenant = await tenantByDomain(sql, domain);
  if (!tenant) throw new PlatformError(ErrorCode.NotFound, `no tenant ${domain}`);
  const app = await workflowAppByIdOrCode(sql, tenant.id, code);
  if (!app) throw new PlatformError(ErrorCode.NotFound, `no workflow app ${code} in ${domain}`);
  return { tenantId: tenant.id, appId: app.id };
}

/**
 * A page of dead deliveries, newest first: every tenant's, a tenant's (`domain`), or an app's
 * (`domain` and `app`); `before` the id the last page ended with. One more than `limit` is read, so
 * the caller knows whether a page follows.
 */
export async function deadCallbacks(
  sql: Queryable,
  filter: { domain?: string | undefined; app?: string | undefined },
  before: string | null,
  limit: number,
): Promise<DeliveryRow[]> {
  let scope: { tenantId: string | null; appId: string | null } = { tenantId: null, appId: null };
  if (filter.app !== undefined) {
    if (filter.domain === undefined)
      throw new PlatformError(ErrorCode.InvalidArgument, "app: name the tenant too (tenant)");
    scope = await namedApp(sql, filter.domain, filter.app);
  } else if (filter.domain !== undefined) {
    const tenant = await tenantByDomain(sql, filter.domain);
    if (!tenant) throw new PlatformError(ErrorCode.NotFound, `no tenant ${filter.domain}`);
    scope = { tenantId: tenant.id, appId: null };
  }
  return deadDeliveryPage(sql, scope, before, limit + 1);
}

/** A delivery and its latest posts, or undefined when there is none with that id. */
export async function callbackDelivery(
  sql: Queryable,
  id: string,
): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] } | undefined> {
  const delivery = await deliveryById(sql, id);
  if (!delivery) return undefined;
  return { delivery, attempts: await attemptsOf(sql, id, ATTEMPTS_SHOWN) };
}

/**
 * Makes a dead delivery due again, its attempts counted anew. A delivery that is not dead is
 * refused: a pending one is on its way, a delivered one was received.
 */
export async function replayCallback(sql: Queryable, id: string): Promise<void> {
  if ((await replayDead(sql, { id })).length > 0) return;
  const delivery = await deliveryById(sql, id);
  if (!delivery) throw new PlatformError(ErrorCode.NotFound, `no callback delivery ${id}`);
  throw new PlatformError(ErrorCode.Conflict, `callback delivery ${id} is ${delivery.status}, not dead`);
}

/** Makes an app's dead deliveries due again (at most REPLAY_MAX, oldest first); answers how many. */
export async function replayAppCallbacks(sql: Queryable, domain: string, code: string): Promise<number> {
  const { appId } = await namedApp(sql, domain, code);
  return (await replayDead(sql, { appId, limit: REPLAY_MAX })).length;
}

/** Gives a tenant's app a new callback signing secret and answers it, the only time it is shown. */
export async function rotateCallbackSecret(
  sql: Queryable,
  secrets: CallbackSecrets,
  domain: string,
  code: string,
): Promise<string> {
  const { appId } = await namedApp(sql, domain, code);
  return secrets.rotate(sql, appId);
}
