import type { FeedEntity } from "../contracts/feed.ts";
import type { Sql } from "../runtime/database.ts";

/** A feed entity as it is staged: column values in the order of its staging table. */
export interface StagedRow {
  /** The row's key (account, code or account:dept:post), for rejects and logs. */
  key: string;
  values: unknown[];
  /** The entity's `timestamp`, null when the provider gave none. */
  timestamp: number | null;
}

/** Staging columns after `run_id, ord`, per entity, matching the `feed_stage_*` tables. */
export const STAGE_COLUMNS: Record<FeedEntity, readonly { name: string; type: string }[]> = {
  users: [
    { name: "account", type: "text" },
    { name: "name", type: "text" },
    { name: "email", type: "text" },
    { name: "phone", type: "text" },
    { name: "disabled", type: "boolean" },
    { name: "ts", type: "bigint" },
  ],
  depts: [
    { name: "code", type: "text" },
    { name: "name", type: "text" },
    { name: "parent_code", type: "text" },
    { name: "independent", type: "boolean" },
    { name: "disabled", type: "boolean" },
    { name: "ts", type: "bigint" },
  ],
  posts: [
    { name: "code", type: "text" },
    { name: "name", type: "text" },
    { name: "formal", type: "boolean" },
    { name: "biz_types", type: "jsonb" },
    { name: "disabled", type: "boolean" },
    { name: "ts", type: "bigint" },
  ],
  occupies: [
    { name: "account", type: "text" },
    { name: "dept_code", type: "text" },
    { name: "post_code", type: "text" },
    { name: "user_code", type: "text" },
    { name: "bizes", type: "jsonb" },
    { name: "disabled", type: "boolean" },
    { name: "ts", type: "bigint" },
  ],
};

/** Rows sent to Postgres in one statement: large enough to be few round trips, small enough to stay light. */
export const STAGE_BATCH = 2000;

/** Columns travel as text arrays (the client types arrays by their first element) and are cast on the server. */
function asText(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** One statement per entity: the batch's columns as arrays, unnested into rows of the staging table. */
function insertStatement(entity: FeedEntity): string {
  const columns = STAGE_COLUMNS[entity];
  const names = columns.map((column) => column.name);
  const arrays = columns.map((_, index) => `$${index + 3}::text[]`);
  const selected = columns.map((column) => `t.${column.name}::${column.type}`);
  return `insert into feed_stage_${entity} (run_id, ord, ${names.join(", ")})
    select $1::uuid, t.ord::int, ${selected.join(", ")}
    from unnest($2::text[], ${arrays.join(", ")}) as t(ord, ${names.join(", ")})`;
}

/**
 * Collects the rows of one entity of a run and writes them to its staging table in batches, so a
 * feed of any size passes through bounded memory.
 */
export class FeedStage {
  private readonly statement: string;
  private ords: string[] = [];
  private columns: (string | null)[][];

  constructor(
    private readonly sql: Sql,
    private readonly runId: string,
    private readonly entity: FeedEntity,
  ) {
    this.statement = insertStatement(entity);
    this.columns = STAGE_COLUMNS[entity].map(() => []);
  }

  /** Adds a row; resolves once it is buffered or, every `STAGE_BATCH` rows, written. */
  async add(row: StagedRow, ord: number): Promise<void> {
    this.ords.push(String(ord));
    for (let index = 0; index < this.columns.length; index++)
      this.columns[index]!.push(asText(row.values[index]));
    if (this.ords.length >= STAGE_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.ords.length === 0) return;
    const parameters = [this.runId, this.ords, ...this.columns];
    this.ords = [];
    this.columns = STAGE_COLUMNS[this.entity].map(() => []);
    await this.sql.unsafe(this.statement, parameters as never[]);
  }
}

/** Drops what a run staged, once it is applied or given up. */
export async function clearStage(sql: Sql, runId: string): Promise<void> {
  for (const entity of Object.keys(STAGE_COLUMNS)) {
    await sql.unsafe(`delete from feed_stage_${entity} where run_id = $1`, [runId]);
  }
}
