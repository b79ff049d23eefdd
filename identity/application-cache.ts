import type { Sql } from "../runtime/database.ts";
import { TtlCache } from "../runtime/ttl-cache.ts";
import { type Application, applicationById } from "./application-store.ts";

/** How long a looked-up application is reused; a change made elsewhere takes effect within it. */
const TTL_MS = 5000;
const MAX_ENTRIES = 10_000;

/** Applications by id, remembered for a few seconds, so issuing a token needs no database round trip for a busy client. */
export class ApplicationCache {
  private readonly cache = new TtlCache<Application>(TTL_MS, MAX_ENTRIES);

  constructor(private readonly sql: Sql) {}

  get(id: string): Promise<Application | undefined> {
    return this.cache.get(id, () => applicationById(this.sql, id));
  }

  /** Forgets what this process knows, after it changed applications itself. */
  clear(): void {
    this.cache.clear();
  }
}
