import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { type RunningProcess, startAllInOne, startGateway } from "../../bin/processes.ts";
import { loadConfig } from "../../runtime/config.ts";
import { type Database, openDatabase } from "../../runtime/database.ts";
import { migrate } from "../../runtime/migrations.ts";
import { freshVhost } from "./rabbit.ts";
import { realServices, realServicesSkip } from "./services.ts";
import { silentLogger } from "./wait.ts";

/** A way of running the platform: everything embedded, or on the real Postgres and RabbitMQ. */
export interface TestMode {
  name: "embedded" | "distributed";
  /** Why this mode's tests are skipped on this machine, or `false`: pass it as `describe`'s `skip`. */
  skip: false | string;
  /** Environment for a fresh platform of this mode: its own data directory or database. */
  prepare(): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }>;
}

export async function tempDir(prefix = "op-test-"): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Creates an empty database on the real server, returning its URL and how to drop it. */
export async function freshDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `op_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const again = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await again.unsafe(`drop database if exists ${name} with (force)`);
      await again.end();
    },
  };
}

/**
 * Both modes, always: the distributed one carries a skip reason when the real services cannot be
 * reached, so its tests are still listed (and counted as skipped) rather than left out.
 */
export async function testModes(): Promise<TestMode[]> {
  const skip = await realServicesSkip();
  return [
    {
      name: "embedded",
      skip: false,
      async prepare() {
        const dir = await tempDir();
        return { env: { DATA_DIR: dir.path }, cleanup: dir.remove };
      },
    },
    {
      name: "distributed",
      skip,
      async prepare() {
        const services = await realServices();
        if (!services) throw new Error(`the distributed mode needs the real services: ${skip}`);
        // A virtual host of its own: queues, retries and dead letters of other suites stay out.
        const [db, vhost, dir] = await Promise.all([
          freshDatabase(services.databaseUrl),
          freshVhost(services.amqpUrl),
          tempDir(),
        ]);
        return {
          env: { DATABASE_URL: db.url, AMQP_URL: vhost.url, DATA_DIR: dir.path },
          async cleanup() {
            await Promise.all([db.drop(), vhost.delete(), dir.remove()]);
          },
        };
      },
    },
  ];
}

/** The environment with a bootstrap file holding `bootstrap`, written into its data directory. */
export async function withBootstrap(
  env: Record<string, string>,
  bootstrap: unknown,
): Promise<Record<string, string>> {
  const file = join(env.DATA_DIR!, "bootstrap.json");
  await writeFile(file, JSON.stringify(bootstrap));
  return { ...env, BOOTSTRAP_FILE: file };
}

export interface TestPlatform {
  url: string;
  running: RunningProcess;
  stop(): Promise<void>;
}

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts the whole platform in this process on a free port, its public URL that port's; with
 * `serving: "http only"`, a gateway alone (no worker parts: no jobs consumed, no outbox relay).
 */
export async function startTestPlatform(
  env: Record<string, string>,
  serving: "everything" | "http only" = "everything",
): Promise<TestPlatform> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: url,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    ...env,
  });
  const running = await (serving === "http only" ? startGateway(config) : startAllInOne(config));
  return { url, running, stop: () => running.stop() };
}

/**
 * A database of the mode, migrated, for the tests of a capability's services, which need it and
 * nothing else; `env` reaches the same database (a second client, as another process would open);
 * `close` closes it and removes what the mode prepared.
 */
export async function migratedDatabase(
  mode: TestMode,
): Promise<{ db: Database; env: Record<string, string>; close(): Promise<void> }> {
  const prepared = await mode.prepare();
  try {
    const db = await openDatabase(loadConfig({ ...prepared.env, LOG_LEVEL: "silent" }), silentLogger);
    try {
      await migrate(db.sql, silentLogger);
    } catch (error) {
      await db.close();
      throw error;
    }
    return {
      db,
      env: prepared.env,
      async close() {
        await db.close();
        await prepared.cleanup();
      },
    };
  } catch (error) {
    await prepared.cleanup();
    throw error;
  }
}
