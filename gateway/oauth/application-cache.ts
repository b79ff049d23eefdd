import type { Sql } from "../../runtime/database.ts";
import { type Application, applicationById } from "../../runtime/directory/applications.ts";

/** How long a looked-up application is reused; a change made elsewhere takes effect within it. */
const TTL_MS = 5000;
const MAX_ENTRIES = 10_000;

/**
 * Applications by id, remembered for a few seconds, so issuing a token needs no database round
 * trip for a busy client. Unknown ids are remembered too, so a flood of made-up ids costs one
 * query per id and window, not one per request.
 */
export class ApplicationCache {
  private readonly entries = new Map<string, { app: Application | undefined; until: number }>();

  constructor(private readonly sql: Sql) {}

  async get(id: string): Promise<Application | undefined> {
    const now = Date.now();
    const cached = this.entries.get(id);
    if (cached && cached.until > now) return cached.app;
    const app = await applicationById(this.sql, id);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { app, until: now + TTL_MS });
    return app;
  }

  /** Forgets what this process knows, after it changed applications itself. */
  clear(): void {
    this.entries.clear();
  }
}
