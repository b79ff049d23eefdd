import type { Queryable } from "../runtime/database.ts";
import { TtlCache } from "../runtime/ttl-cache.ts";
import { findSeal, type SealRef } from "./seal-store.ts";

/**
 * The seals applications may use, by tenant and code, remembered for a few seconds as
 * applications are: a seal changed or withdrawn through another process takes effect within that
 * window, and at once through this one (the admin routes clear it).
 */
export class SealCache {
  private readonly cache = new TtlCache<SealRef>(5000, 10_000);

  constructor(private readonly sql: Queryable) {}

  find(code: string, tenantId: string | undefined): Promise<SealRef | undefined> {
    return this.cache.get(`${tenantId ?? ""}/${code}`, () => findSeal(this.sql, code, tenantId));
  }

  clear(): void {
    this.cache.clear();
  }
}
