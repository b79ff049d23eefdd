import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import postgres from "postgres";
import { metricSamples } from "./metric-samples.ts";
import { freePort, freshDatabase, tempDir, withBootstrap } from "./platform.ts";
import { freshVhost } from "./rabbit.ts";
import { realServices, realServicesSkip } from "./services.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** A platform of separate processes on the real services: its own database, vhost and data directory. */
export interface DistributedSetup {
  /** The environment every process of this platform starts with. */
  env: Record<string, string>;
  /** A connection to the platform's database, for the test's own checks. */
  sql: postgres.Sql;
  cleanup(): Promise<void>;
}

/**
 * A `before` hook for suites that need the real services: it fails at once, with what is missing,
 * before any test starts a server or a process that would keep the run from ending.
 */
export async function requireRealServices(): Promise<void> {
  if (!(await realServices())) throw new Error(`${FAULT_SERVICES_MISSING}: ${await realServicesSkip()}`);
}

const FAULT_SERVICES_MISSING = "the fault suite needs Postgres and RabbitMQ (DATABASE_URL, AMQP_URL)";

export async function distributedSetup(
  bootstrap: unknown,
  settings: Record<string, string> = {},
): Promise<DistributedSetup> {
  const services = await realServices();
  if (!services) throw new Error(FAULT_SERVICES_MISSING);
  const db = await freshDatabase(services.databaseUrl);
  const vhost = await freshVhost(services.amqpUrl);
  const dir = await tempDir("op-fault-");
  const env = {
    ...(await withBootstrap(
      {
        DATABASE_URL: db.url,
        AMQP_URL: vhost.url,
        DATA_DIR: dir.path,
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
      },
      bootstrap,
    )),
    ...settings,
  };
  const sql = postgres(db.url, { max: 2, onnotice: () => {} });
  return {
    env,
    sql,
    async cleanup() {
      await sql.end({ timeout: 1 });
      await db.drop();
      await vhost.delete();
      await dir.remove();
    },
  };
}

/**
 * One process of the platform (`bin/gateway.ts`, `bin/worker.ts` or `bin/platform.ts`), started as
 * operators start it.
 */
export class PlatformProcess {
  private constructor(
    private readonly child: ChildProcess,
    /** Where it answers: the API of a gateway or the whole platform, `/metrics` and `/healthz` of a worker. */
    readonly url: string,
  ) {}

  /** `root`: the folder holding the platform's files, the checkout unless a test assembled another. */
  static async gateway(env: Record<string, string>, root = ROOT): Promise<PlatformProcess> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // Gateways of one platform share its public URL (the tokens' issuer) when the test gives one.
    const child = PlatformProcess.spawn(
      ["bin/gateway.ts"],
      { PUBLIC_URL: url, ...env, PORT: String(port), HOST: "127.0.0.1" },
      root,
    );
    return PlatformProcess.ready(child, url, "/readyz");
  }

  /**
   * `npm start`'s process, as it runs it (`bin/launch.mjs bin/platform.ts`, built): the gateway and
   * every worker in one, on the embedded database and broker unless `env` names the services.
   */
  static async allInOne(env: Record<string, string>, root = ROOT): Promise<PlatformProcess> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = PlatformProcess.spawn(
      ["bin/launch.mjs", "bin/platform.ts"],
      { PUBLIC_URL: url, ...env, PORT: String(port), HOST: "127.0.0.1" },
      root,
      [],
    );
    return PlatformProcess.ready(child, url, "/readyz");
  }

  static async worker(env: Record<string, string>, queues: string[], root = ROOT): Promise<PlatformProcess> {
    const port = await freePort();
    const child = PlatformProcess.spawn(
      ["bin/worker.ts", ...queues],
      // Its /metrics open to the test, as a scraper inside the network would read it.
      { METRICS_PUBLIC: "true", ...env, METRICS_PORT: String(port), HOST: "127.0.0.1" },
      root,
    );
    return PlatformProcess.ready(child, `http://127.0.0.1:${port}`, "/healthz");
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Ends it at once, as a crash or an OOM kill would: no draining, no goodbye to the broker. */
  async kill(): Promise<void> {
    if (!this.running) return;
    const exited = once(this.child, "exit");
    this.child.kill("SIGKILL");
    await exited;
  }

  /** Stops it the way an orchestrator does: SIGTERM, then the graceful shutdown. */
  async stop(): Promise<void> {
    if (!this.running) return;
    const exited = once(this.child, "exit");
    this.child.kill("SIGTERM");
    await exited;
  }

  /** A sample of the process's `/metrics` (a worker's), keyed by series. */
  async metrics(): Promise<Map<string, number>> {
    return metricSamples(await (await fetch(`${this.url}/metrics`)).text());
  }

  private static spawn(
    args: string[],
    env: Record<string, string>,
    root: string,
    loader = ["--import", "tsx"],
  ): ChildProcess {
    return spawn(process.execPath, [...loader, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, ...env },
      stdio: ["ignore", process.env.TEST_LOG_LEVEL ? "inherit" : "ignore", "inherit"],
    });
  }

  private static async ready(child: ChildProcess, url: string, probe: string): Promise<PlatformProcess> {
    const started = new PlatformProcess(child, url);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (!started.running)
        throw new Error(`${probe} never answered: the process exited (${child.exitCode})`);
      const answered = await fetch(`${url}${probe}`).then(
        (response) => response.ok,
        () => false,
      );
      if (answered) return started;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await started.kill();
    throw new Error(`${url}${probe} did not answer within 30 s`);
  }
}
