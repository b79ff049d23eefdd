import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import postgres from "postgres";
import { Agent, request } from "undici";
import { CampusAppStandIn } from "../../test/support/campus-app-stand-in.ts";
import { sealPng } from "../../test/support/pdf-fixtures.ts";
import { freshDatabase, tempDir } from "../../test/support/platform.ts";
import { freshVhost } from "../../test/support/rabbit.ts";
import { issueToken } from "../../test/support/tokens.ts";
import { atMost, type BenchCase, type BenchResult, higherIsBetter } from "../bench-result.ts";
import { type FixedRateRun, runFixedRate, slowSeconds, weightedRotation } from "../fixed-rate.ts";
import { type BenchServer, startServer } from "../load.ts";
import { mixedRequests, RECIPIENTS, type RequestKind, THUMB_SIZE } from "../mixed-requests.ts";
import { AMQP_URL, DATABASE_URL, PLATFORM_SERVER, platformEnv } from "../platform-env.ts";
import { cpuSeconds, machineBusySeconds, sampleRss, slopePerMinute, startAndEnd } from "../process-usage.ts";
import { percentile } from "../statistics.ts";

const PORT = 18_991;
const REFERENCE_PORT = 18_995;
const CLIENT = { id: "bench-load", secret: "bench-load-secret-0123456789abcdefghijklmn" };
const APP_TOKEN = "bench-campus-app-token";
/** Requests a second offered, whatever the answers' pace; BENCH_LOAD_RATE tries another machine's. */
const RATE = Number(process.env.BENCH_LOAD_RATE) || 100;
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS) || 60;
const WARM_UP_SECONDS = 10;
const REFERENCE_SECONDS = 10;
/**
 * Shares of the requests, out of 100. A PAdES seal costs about 70 ms of CPU, four uploads or
 * thirty-five status queries, so seals are the rare kind, as they are in a university's day.
 */
const MIX: Record<RequestKind, number> = { token: 10, send: 30, status: 40, seal: 5, upload: 15 };
const MEMORY_SAMPLE_MS = 2_000;
/** How long deliveries and thumbnails may trail the last request before they count as lost. */
const SETTLE_DEADLINE_MS = 30_000;

/**
 * The overall p99: one second, the limit for a person's flow of thought to stay uninterrupted
 * while waiting on an answer (Nielsen's response-time limits). It falls among the seals (one
 * request in twenty, about 70 ms of CPU each, waiting on each other at the one sign worker), so it
 * is mostly their time; the reference, the bare route's p99 under the same generator, shows what
 * the machine alone adds. The bar stays absolute: the rate offered is fixed, so a slower machine
 * runs nearer its capacity and the tail grows with its queues, in proportion to nothing measured
 * here (docs/benchmark-bars.md); BENCH_LOAD_RATE gives such a machine a rate of its own.
 */
const P99_TARGET_MS = 1_000;
/**
 * A process's resident memory, the mean of the last third of the run over that of the first. It
 * moves without any leak (allocators hand back 40 to 80 MB at once and take up to 30 MB again
 * within a minute), so the ceiling is twice the largest such rise, about a quarter of a process's
 * resident size: it stops a runaway, and the heap probe below is the fine test.
 */
const RSS_GROWTH_TARGET_MB = 64;
/**
 * The heap after a full collection, after the run over before it: only retained objects count,
 * so 8 MB over the run's 6,000 requests catches a leak of about 1.4 KB a request; runs without
 * one have moved it by 2 MB at most (2.5 MB over a run four times as long).
 */
const HEAP_GROWTH_TARGET_MB = 8;

type Process = "gateway" | "notify" | "sign" | "thumbs";
const WORKER_QUEUES: Record<Exclude<Process, "gateway">, string> = {
  notify: "notify.app",
  sign: "sign",
  thumbs: "files.thumbs",
};

function summary(run: FixedRateRun<RequestKind>, kind?: RequestKind) {
  const samples = run.samples.filter((sample) => !kind || sample.kind === kind);
  const latencies = samples.map((sample) => sample.latencyMs);
  return {
    requests: samples.length,
    errors: samples.filter((sample) => sample.error).length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const mixText = (Object.entries(MIX) as [RequestKind, number][]).map(([k, w]) => `${k} ${w}%`).join(", ");

export const mixedLoadBench: BenchCase = {
  name: "load",
  description: `${RATE} requests/s for ${SECONDS} s (${mixText}) to a gateway process and notify.app, sign and files.thumbs worker processes on real Postgres and RabbitMQ`,
  async run(): Promise<BenchResult[]> {
    const dir = await tempDir("op-bench-load-");
    const db = await freshDatabase(DATABASE_URL);
    const vhost = await freshVhost(AMQP_URL);
    const campusApp = await CampusAppStandIn.start(APP_TOKEN);
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    // Enough connections that a burst of slow seals never makes the next calls wait for a socket.
    const dispatcher = new Agent({ connections: 128 });
    const processes: Partial<Record<Process, BenchServer>> = {};
    let reference: BenchServer | undefined;
    try {
      await writeFile(join(dir.path, "seal.png"), sealPng(256));
      const bootstrap = join(dir.path, "bootstrap.json");
      await writeFile(
        bootstrap,
        JSON.stringify({
          applications: [
            {
              id: CLIENT.id,
              secret: CLIENT.secret,
              name: "Bench",
              scopes: ["send_app_notification", "notifications", "signature"],
            },
          ],
          seals: [{ code: "BENCH", name: "Bench seal", image: "seal.png", width: 100, height: 100 }],
          channels: [
            {
              name: "app",
              plugin: "app",
              config: { baseUrl: campusApp.url, token: APP_TOKEN },
              permittedApplications: [CLIENT.id],
            },
          ],
        }),
      );
      // Its own virtual host: other suites on the broker use the same queue names on the default one.
      const env = { ...platformEnv(dir.path, db.url, bootstrap), AMQP_URL: vhost.url };
      // --expose-gc only lets the memory probe collect before it measures; it changes nothing else.
      const flags = ["--expose-gc"];
      // The gateway first: it applies the migrations and the bootstrap the workers read.
      processes.gateway = await startServer(
        PLATFORM_SERVER,
        PORT,
        { ...env, BENCH_PROCESS: "gateway" },
        flags,
      );
      await Promise.all(
        Object.entries(WORKER_QUEUES).map(async ([name, queue]) => {
          processes[name as Process] = await startServer(
            PLATFORM_SERVER,
            0,
            { ...env, BENCH_PROCESS: "worker", BENCH_QUEUES: queue },
            flags,
          );
        }),
      );
      reference = await startServer(new URL("../servers/bare-hono.ts", import.meta.url), REFERENCE_PORT, {});

      const url = `http://127.0.0.1:${PORT}`;
      const token = await issueToken(url, CLIENT, {
        grant_type: "client_credentials",
        scope: "send_app_notification notifications signature",
      });
      const app = await mixedRequests({ url, dispatcher, client: CLIENT, token, sealCode: "BENCH" });
      // A status query asks for notifications already sent, from the first one on.
      await app.calls.send();

      const missingThumbnails = async (ids: string[]): Promise<number> => {
        const deadline = performance.now() + SETTLE_DEADLINE_MS;
        for (;;) {
          const [row] = await sql<{ made: number }[]>`
            select count(*)::int as made from file_thumbs where file_id = any(${ids}::uuid[]) and size = ${THUMB_SIZE}`;
          const missing = ids.length - row!.made;
          if (missing === 0 || performance.now() > deadline) return missing;
          await sleep(500);
        }
      };
      const heapsMb = async () => {
        const heaps: Partial<Record<Process, number>> = {};
        for (const [name, server] of Object.entries(processes)) {
          const { memory } = (await server.ask("memory")) as { memory: NodeJS.MemoryUsage };
          heaps[name as Process] = memory.heapUsed / 2 ** 20;
        }
        return heaps as Record<Process, number>;
      };

      // The same generator at the same rate against a bare Hono route: what the machine and the
      // generator alone add to a latency.
      const bare = await runFixedRate({
        rate: RATE,
        seconds: REFERENCE_SECONDS,
        next: () => "status",
        call: async () => {
          const response = await request(`http://127.0.0.1:${REFERENCE_PORT}/healthz`, { dispatcher });
          await response.body.dump();
          if (response.statusCode !== 200) throw new Error(`bare route answered ${response.statusCode}`);
        },
      });
      const bareLatencies = bare.samples.map((sample) => sample.latencyMs);

      // A warm platform: pools open, hot paths compiled, the signing certificate loaded; then its
      // deliveries and thumbnails done, so the memory probe finds the processes at rest.
      const warmUp = await runFixedRate<RequestKind>({
        rate: RATE,
        seconds: WARM_UP_SECONDS,
        next: weightedRotation(MIX),
        call: (kind) => app.calls[kind](),
      });
      const warmUpErrors = warmUp.samples.filter((sample) => sample.error);
      if (warmUpErrors.length > 0)
        console.error(`load: ${warmUpErrors.length} warm-up errors, first: ${warmUpErrors[0]!.error}`);
      await app.unsentTasks([...app.sent], SETTLE_DEADLINE_MS);
      await missingThumbnails([...app.uploaded]);

      const heapsBefore = await heapsMb();
      const measuredFrom = { sent: app.sent.length, uploaded: app.uploaded.length };
      const pids = Object.fromEntries(Object.entries(processes).map(([name, server]) => [name, server.pid]));
      const accounted = [...Object.values(pids), process.pid];
      const cpuBefore = await Promise.all(accounted.map(cpuSeconds));
      const machineBefore = await machineBusySeconds();
      const sampler = sampleRss(pids, MEMORY_SAMPLE_MS);
      const windowStart = performance.now();
      const run = await runFixedRate<RequestKind>({
        rate: RATE,
        seconds: SECONDS,
        next: weightedRotation(MIX),
        call: (kind) => app.calls[kind](),
      });
      const rss = await sampler.stop();
      const cpuAfter = await Promise.all(accounted.map(cpuSeconds));
      const machineBusy = (await machineBusySeconds()) - machineBefore;
      const windowSeconds = (performance.now() - windowStart) / 1000;
      const unsent = await app.unsentTasks(app.sent.slice(measuredFrom.sent), SETTLE_DEADLINE_MS);
      const noThumbnail = await missingThumbnails(app.uploaded.slice(measuredFrom.uploaded));
      const heapsAfter = await heapsMb();

      const failed = run.samples.filter((sample) => sample.error);
      const errors = failed.length + unsent + noThumbnail;
      const cores = (i: number) => (cpuAfter[i]! - cpuBefore[i]!) / windowSeconds;
      console.error(
        `load: offered ${run.offered.toFixed(1)}/s, achieved ${run.achieved.toFixed(1)}/s; bare route ` +
          `p50 ${percentile(bareLatencies, 50).toFixed(1)} ms, p99 ${percentile(bareLatencies, 99).toFixed(1)} ms; ` +
          `the generator started a request at most ${Math.max(...run.samples.map((s) => s.launchLagMs)).toFixed(0)} ms late`,
      );
      console.table(
        [undefined, ...(Object.keys(MIX) as RequestKind[])].map((kind) => {
          const s = summary(run, kind);
          return {
            kind: kind ?? "all",
            requests: s.requests,
            errors: s.errors,
            "p50 ms": round1(s.p50),
            "p99 ms": round1(s.p99),
            "max ms": round1(s.max),
          };
        }),
      );
      const p99 = summary(run).p99;
      console.error(
        `load: requests slower than the p99 were due in seconds ${slowSeconds(run.samples, p99)}`,
      );
      console.error(
        `load: ${failed.length} failed requests${failed.length ? ` (first: ${failed[0]!.error})` : ""}, ` +
          `${unsent} notification tasks not sent, ${noThumbnail} uploads without a thumbnail`,
      );
      console.table(
        Object.keys(processes).map((name, i) => {
          const series = rss.get(name)!;
          const { start, end } = startAndEnd(series);
          return {
            process: name,
            "cpu cores": Math.round(cores(i) * 100) / 100,
            "rss first MB": round1(series.points[0]!.mb),
            "rss last MB": round1(series.points.at(-1)!.mb),
            "rss start MB": round1(start),
            "rss end MB": round1(end),
            "slope MB/min": round1(slopePerMinute(series)),
            "heap start MB": round1(heapsBefore[name as Process]),
            "heap end MB": round1(heapsAfter[name as Process]),
          };
        }),
      );
      for (const [name, series] of rss) {
        console.error(
          `load: ${name} resident MB every ${MEMORY_SAMPLE_MS / 1000} s: ${series.points.map((p) => Math.round(p.mb)).join(" ")}`,
        );
      }
      // Other work on the machine slows every latency here; this says how much there was.
      const platformCores = Object.keys(processes).reduce((sum, _, i) => sum + cores(i), 0);
      console.error(
        `load: the machine was busy ${(machineBusy / windowSeconds).toFixed(2)} of its cores, the platform's ` +
          `processes ${platformCores.toFixed(2)}, the generator and stand-in ${cores(accounted.length - 1).toFixed(2)}`,
      );

      const outcomes =
        run.samples.length +
        (app.sent.length - measuredFrom.sent) * RECIPIENTS +
        (app.uploaded.length - measuredFrom.uploaded);
      return [
        higherIsBetter("load.throughput", "req/s", run.achieved, run.offered, 0.99),
        // Reference: the bare route's p99 under the same generator at the same rate.
        atMost("load.p99", "ms", p99, percentile(bareLatencies, 99), P99_TARGET_MS),
        // Reference: every outcome counted (requests, deliveries, thumbnails); the ratio is the
        // share of them that succeeded.
        {
          ...atMost("load.errors", "outcomes", errors, outcomes, 0),
          ratio: Math.round((1 - errors / outcomes) * 10_000) / 10_000,
        },
        ...Object.keys(processes).flatMap((name) => {
          const { start, end } = startAndEnd(rss.get(name)!);
          const heapStart = heapsBefore[name as Process];
          return [
            atMost(`load.${name}-rss`, "MB", end, start, round1(start + RSS_GROWTH_TARGET_MB)),
            atMost(
              `load.${name}-heap`,
              "MB",
              heapsAfter[name as Process],
              heapStart,
              round1(heapStart + HEAP_GROWTH_TARGET_MB),
            ),
          ];
        }),
      ];
    } finally {
      await dispatcher.close();
      await Promise.all(Object.values(processes).map((server) => server.stop()));
      await reference?.stop();
      await sql.end();
      await campusApp.close();
      await vhost.delete();
      await db.drop();
      await dir.remove();
    }
  },
};
