import { type ControlChanges, forgetOnChanges } from "../runtime/control-changes.ts";
import type { Queryable } from "../runtime/database.ts";
import { TtlCache } from "../runtime/ttl-cache.ts";
import { type StartableApp, startableApp } from "./app-store.ts";

/**
 * How long an app is remembered without news of a change: changes are announced, so this only
 * bounds how long a lost announcement could keep an app as it was.
 */
const APP_CACHE_MS = 60_000;

/**
 * The apps 3.2 starts, with the version a start of each data mode uses, remembered until a change
 * of the tenant's apps is announced (a deployment, 4.2, a bootstrap). Nearly every start names an
 * app started a moment before; remembered, the start is the one statement that writes it.
 */
export class StartableApps {
  private readonly apps = new TtlCache<StartableApp>(APP_CACHE_MS, 10_000);

  constructor(
    private readonly sql: Queryable,
    changes: ControlChanges,
  ) {
    forgetOnChanges(changes, ["workflow-app", "configuration"], () => this.apps.clear()).catch(() => {});
  }

  /** The tenant's app by id or code, with the version a start of the data mode uses. */
  get(tenantId: string, idc: string, test: boolean): Promise<StartableApp | undefined> {
    return this.apps.get(`${tenantId} ${test} ${idc}`, () => startableApp(this.sql, tenantId, idc, test));
  }
}
