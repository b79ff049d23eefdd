import { once } from "node:events";
import { createConnection } from "node:net";
import postgres from "postgres";
import type { Config } from "./config.ts";
import { type ControlChanges, inProcessControlChanges, postgresControlChanges } from "./control-changes.ts";
import type { EmbeddedPostgres } from "./embedded-postgres.ts";
import type { Logger } from "./logger.ts";

export type Sql = postgres.Sql;
/** What a store function runs its statements on: the pool, or a transaction of it. */
export type Queryable = Sql | postgres.TransactionSql;

export interface Database {
  sql: Sql;
  kind: "postgres" | "embedded";
  /** Change events every process of the platform hears. */
  changes: ControlChanges;
  isReachable(): Promise<boolean>;
  close(): Promise<void>;
}

/** The strings of `joinFragments`' templates, one array per count and separator, as a literal template has one. */
const joinTemplates = new Map<string, TemplateStringsArray>();
/** The most fragments one template joins: longer lists are joined in parts, so the shapes kept stay few. */
const MOST_JOINED = 32;

/**
 * `fragments` (at least one) joined by `separator` (a constant of the caller's SQL: `", "`, `" and "`,
 * `" union "`) as one fragment: one template with an argument per fragment, where folding them
 * pairwise would nest a fragment (each a promise of the client's) per separator. Its strings array
 * is kept per shape because the client keys what it remembers of a template (the origin of its
 * errors) by that array, as it does a literal's.
 */
export function joinFragments(
  sql: Queryable,
  fragments: readonly postgres.Fragment[],
  separator: string,
): postgres.Fragment {
  if (fragments.length > MOST_JOINED) {
    const parts: postgres.Fragment[] = [];
    for (let start = 0; start < fragments.length; start += MOST_JOINED)
      parts.push(joinFragments(sql, fragments.slice(start, start + MOST_JOINED), separator));
    return joinFragments(sql, parts, separator);
  }
  const shape = `${fragments.length}:${separator}`;
  let strings = joinTemplates.get(shape);
  if (!strings) {
    const parts = ["", ...Array.from({ length: fragments.length - 1 }, () => separator), ""];
    strings = Object.freeze(Object.assign(parts, { raw: Object.freeze([...parts]) }));
    joinTemplates.set(shape, strings);
  }
  return sql(strings, ...fragments);
}

/**
 * Runs `work` in one transaction, as `sql.begin` does, but sends `begin` in the same write as the
 * work's first statement instead of waiting a round trip for it: under load every round trip is
 * a wait for the event loop, with the connection held. A transaction whose work fails is rolled back.
 * `characteristics` are those of `begin`, for the few readers that need a consistent snapshot.
 */
export async function transaction<T>(
  sql: Sql,
  work: (tx: Queryable) => Promise<T>,
  characteristics?: "isolation level repeatable read read only",
): Promise<T> {
  const tx = await sql.reserve();
  openTransactions.add(tx);
  let lost = false;
  try {
    const begin = characteristics ? tx`begin ${tx.unsafe(characteristics)}` : tx`begin`;
    const [, result] = await Promise.all([begin.execute(), work(tx)]);
    // A statement that failed, even one the work caught, left the transaction to be rolled back.
    const commit = commitsSent.get(tx) ?? tx`commit`;
    if ((await commit).command === "ROLLBACK") throw new Error("the transaction was rolled back");
    return result;
  } catch (error) {
    // The pool has a closed connection back already, to connect again: released, it would be reused
    // closed. Only the client's own codes say the socket is gone; a server error leaves it open.
    lost = CONNECTION_ERRORS.has((error as { code?: string } | undefined)?.code ?? "");
    if (!lost) await tx`rollback`.catch(() => {});
    throw error;
  } finally {
    if (!lost) tx.release();
  }
}

/** Postgres's code for a transaction it aborted to break a deadlock. */
const DEADLOCK_DETECTED = "40P01";

/**
 * `transaction()`, run again (up to `attempts` times in all) when Postgres broke a deadlock by
 * aborting it: the other transaction went on, and this one, rolled back whole, may simply run
 * again. For work that locks rows in an order other work reverses (a process and its
 * sub-process), and that does nothing but read and write the database.
 */
export async function transactionRetryingDeadlocks<T>(
  sql: Sql,
  work: (tx: Queryable) => Promise<T>,
  attempts = 3,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction(sql, work);
    } catch (error) {
      if (attempt >= attempts || (error as { code?: unknown } | undefined)?.code !== DEADLOCK_DETECTED)
        throw error;
    }
  }
}

/** The connections `transaction()` holds a transaction open on. */
const openTransactions = new WeakSet<Queryable>();
/** The commits sent by `sendCommitBehind`, for `transaction()` to read instead of sending its own. */
const commitsSent = new WeakMap<Queryable, postgres.PendingQuery<postgres.Row[]>>();

/**
 * Sends the commit of the transaction `sql` right behind the statements already sent on it, so it
 * goes without waiting a round trip for them; `transaction()` then reads its outcome. For work whose
 * last statement is a write: nothing may be sent on `sql` after it, since that would run outside
 * the transaction. On the pool (no transaction) it sends nothing.
 */
export function sendCommitBehind(sql: Queryable): void {
  if (!openTransactions.has(sql) || commitsSent.has(sql)) return;
  const commit = (sql as postgres.TransactionSql)`commit`.execute();
  // Read by transaction() unless the work fails first; a failure is the work's to report.
  commit.catch(() => {});
  commitsSent.set(sql, commit);
}

/** postgres.js's own codes for a connection that could not be made or was lost. */
const CONNECTION_ERRORS = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * Whether an error says the database cannot be reached right now, rather than that a statement was
 * wrong: a lost or refused connection, a server shutting down or starting (SQLSTATE class 57P and
 * 08), or one out of connection slots (53300). A request meeting one may succeed when retried.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") return false;
  return CONNECTION_ERRORS.has(code) || code.startsWith("57P") || code.startsWith("08") || code === "53300";
}

/**
 * Runs `work`, running it again while the database is out of reach, for up to `withinMs`. For
 * writes that record something already done elsewhere (a message handed to a provider): losing
 * them to a database restart would have the work done again.
 */
export async function retryWhileUnavailable<T>(work: () => Promise<T>, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (let pause = 100; ; pause = Math.min(pause * 2, 1000)) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() + pause > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/**
 * Connects to DATABASE_URL, or starts the embedded database under DATA_DIR when it is unset; or
 * takes `embedded`, an embedded database the caller already started. Answers at once: the client
 * connects at its first query, which waits for the embedded database to serve, so a process can
 * make what needs no data (its routes, say) while the database starts.
 */
export async function openDatabase(
  config: Config,
  log: Logger,
  embedded?: Promise<EmbeddedPostgres>,
): Promise<Database> {
  const common = {
    onnotice: () => {},
    connect_timeout: 10,
    connection: { application_name: "open-platform" },
  };
  if (config.database.url) {
    const sql = postgres(config.database.url, { ...common, max: config.database.poolSize });
    return wrap(sql, "postgres", async () => {}, postgresControlChanges(sql, log));
  }
  const server = embedded ?? startEmbedded(config.dataDir);
  server.then(
    () => log.info({ dataDir: config.dataDir }, "embedded database started"),
    // A start that fails fails the first query, which says why.
    () => {},
  );
  // Connected once the database serves: a query before then waits for it. postgres.js documents
  // `socket` (its README's "Custom socket") but leaves it out of its types.
  const connectOnceServed: object = {
    async socket() {
      const { host, port } = await server;
      const socket = createConnection(port, host);
      await once(socket, "connect");
      return socket;
    },
  };
  const sql = postgres({
    ...common,
    username: "postgres",
    database: "postgres",
    max: 1,
    ...connectOnceServed,
  });
  const stopServer = async () => {
    const started = await server.catch(() => undefined);
    await started?.stop();
  };
  return wrap(sql, "embedded", stopServer, inProcessControlChanges());
}

/** Loaded only where it runs: processes given DATABASE_URL never need it. */
async function startEmbedded(dataDir: string): Promise<EmbeddedPostgres> {
  const { startEmbeddedPostgres } = await import("./embedded-postgres.ts");
  return startEmbeddedPostgres(dataDir);
}

function wrap(
  sql: Sql,
  kind: Database["kind"],
  stopServer: () => Promise<void>,
  changes: ControlChanges,
): Database {
  return {
    sql,
    kind,
    changes,
    async isReachable() {
      try {
        await sql`select 1`;
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await sql.end({ timeout: 5 });
      await stopServer();
    },
  };
}
