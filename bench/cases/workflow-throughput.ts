import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import postgres from "postgres";
import { Agent, request } from "undici";
import { freshDatabase, tempDir } from "../../test/support/platform.ts";
import { issueToken } from "../../test/support/tokens.ts";
import { type BenchCase, type BenchResult, higherIsBetter, ratioAtMost } from "../bench-result.ts";
import { startServer } from "../load.ts";
import { DATABASE_URL, PLATFORM_SERVER, platformEnv } from "../platform-env.ts";
import { percentile } from "../statistics.ts";

const PORT = 18_971;
const CLIENTS = 50;
const SECONDS = 20;
const WARM_UP_SECONDS = 3;
/** Each run of the comparison with and without the relay. */
const COMPARED_SECONDS = 12;
const ADMIN_TOKEN = "bench-workflow-admin-token-0123456789abcdef";
const SECRET = "bench-workflow-secret-0123456789abcdefghij";
/** The rows one approval writes besides those it reads: process, tasks, to-do rows, activities, events, journal entries, updates. */
const ROWS_PER_APPROVAL = 25;
/**
 * Handled tasks a second at least this share of the bare-transaction reference's: 0.196 and 0.198
 * in the full runs of the two fast machines, 0.18 to 0.36 on the slower ones, so 30% less lands
 * under it (docs/benchmark-bars.md). The issue's 500 tasks a second is kept beside it.
 */
const THROUGHPUT_RATIO = 0.15;
/** With the outbox relay running, handled tasks a second at least this share of the runs without it. */
const RELAYED_RATIO = 0.9;
/** With the tenant's statistics kept as well, at least this share of the relayed runs without them. */
const STATISTICS_RATIO = 0.95;
/**
 * The start's p99 at most this many times its median: 2.0 to 2.26 on every machine measured, as
 * the p99 follows the closed loop's throughput (see describeClosedLoop), which the row above bars.
 */
const START_TAIL_RATIO = 2.6;

/** A three-step approval: the applicant's form, the department head's approval (by position), the end. */
const approval = {
  schema: { fields: [{ name: "days", type: "number" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "approve", assignees: [{ position: "{initiator}:head" }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "approve" },
      { from: "approve", to: "done" },
    ],
  },
};

/**
 * The reference: the same number of row writes an approval makes, in as many transactions, by 50
 * clients through the same Postgres client library, with none of the platform around them.
 */
async function bareTransactions(databaseUrl: string, seconds: number): Promise<number> {
  const sql = postgres(databaseUrl, { max: CLIENTS, onnotice: () => {} });
  try {
    await sql`create table if not exists bench_rows (id bigint generated always as identity primary key, owner uuid, payload jsonb)`;
    let approvals = 0;
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < deadline) {
          // An approval is three transactions: start, handle the form, handle the approval.
          for (let step = 0; step < 3; step++) {
            await sql.begin(async (tx) => {
              const rows = Array.from({ length: Math.ceil(ROWS_PER_APPROVAL / 3) }, (_, i) => ({ i }));
              await tx`insert into bench_rows (owner, payload)
                       select gen_random_uuid(), r from jsonb_array_elements(${sql.json(rows as never)}) r`;
            });
          }
          approvals++;
        }
      }),
    );
    return (approvals * 2) / seconds;
  } finally {
    await sql`drop table if exists bench_rows`;
    await sql.end();
  }
}

/**
 * Deletes every process and what hangs off it (tasks, inbox, events, push messages), keeping the
 * apps and users. Not analyzed after: statistics of empty tables would have the planner take them
 * for empty while a run fills them, and scan them whole.
 */
async function emptyWorkflowTables(databaseUrl: string): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`truncate workflow_processes, workflow_events, workflow_activities, workflow_outbox_cursors,
                       push_messages, push_clocks, workflow_stats_processes, workflow_stats_hours,
                       workflow_stats_days cascade`;
  } finally {
    await sql.end();
  }
}

/**
 * The clients have no think time, so by Little's law a request's mean latency is the clients divided
 * by the requests answered a second, and the start's p99 follows that mean (see the README).
 */
function describeClosedLoop(requestLatencies: number[], startLatencies: number[]): void {
  const mean = requestLatencies.reduce((sum, latency) => sum + latency, 0) / requestLatencies.length;
  const rate = requestLatencies.length / SECONDS;
  console.error(
    `workflow: ${rate.toFixed(0)} requests a second, a request's mean latency ${mean.toFixed(1)} ms ` +
      `(${CLIENTS} clients / that rate: ${((CLIENTS / rate) * 1000).toFixed(1)} ms); ` +
      `the start's p99 is ${(percentile(startLatencies, 99) / mean).toFixed(2)} times that mean`,
  );
}

export const workflowBench: BenchCase = {
  name: "workflow",
  description: `a three-step approval over HTTP by ${CLIENTS} clients: start (3.2), the form and the department head's approval (3.1), gateway on Postgres`,
  async run(): Promise<BenchResult[]> {
    const dir = await tempDir("op-bench-");
    const db = await freshDatabase(DATABASE_URL);
    const bootstrap = join(dir.path, "bootstrap.json");
    const users = Array.from({ length: CLIENTS }, (_, i) => ({
      tenant: "bench.edu",
      account: `applicant${i}`,
      name: `Applicant ${i}`,
    }));
    await writeFile(
      bootstrap,
      JSON.stringify({
        tenants: [{ domain: "bench.edu", name: "Bench" }],
        applications: [
          {
            id: "bench-app",
            secret: SECRET,
            name: "Bench",
            type: "enterprise",
            tenant: "bench.edu",
            scopes: ["sys_start", "sys_submit", "sys_process", "sys_triple_edit"],
          },
        ],
        users: [...users, { tenant: "bench.edu", account: "head", name: "Head" }],
      }),
    );
    // A gateway process, as the distributed mode runs one: the approval needs no worker.
    const platform = await startServer(PLATFORM_SERVER, PORT, {
      ...platformEnv(dir.path, db.url, bootstrap),
      ADMIN_TOKEN,
      BENCH_PROCESS: "gateway",
    });
    const client = new Agent({ connections: CLIENTS });
    const url = `http://127.0.0.1:${PORT}`;
    const call = async (method: string, path: string, token: string, params: Record<string, string>) => {
      const response = await request(`${url}/apis/v2${path}?${new URLSearchParams(params)}`, {
        method: method as "PUT",
        dispatcher: client,
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await response.body.json()) as { errno: number; error: string; entities: unknown[] };
      if (body.errno !== 0) throw new Error(`${method} ${path}: ${body.error}`);
      return body.entities;
    };
    try {
      const token = await issueToken(
        url,
        { id: "bench-app", secret: SECRET },
        { grant_type: "client_credentials" },
      );
      await call("PUT", "/triple/dept", token, { code: "cs", name: "Computer science" });
      await call("PUT", "/triple/post", token, { code: "head", name: "Head" });
      await call("PUT", "/triple/post", token, { code: "member", name: "Member" });
      await call("PUT", "/position/cs:head/users", token, { code: "head" });
      for (const user of users) await call("PUT", "/position/cs:member/users", token, { code: user.account });
      const deployed = await fetch(`${url}/admin/workflows/bench.edu/approval/versions`, {
        method: "PUT",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        // Started by the holders of cs:member only: each start asks the grants and the directory.
        body: JSON.stringify({
          definition: approval,
          online: true,
          app: { name: "Approval", starters: { positions: ["cs:member"] } },
        }),
      });
      if (deployed.status !== 200)
        throw new Error(`deploy answered ${deployed.status}: ${await deployed.text()}`);

      // One run: the clients go on from the warm-up into the measured seconds without a pause, so the
      // window sees the steady state, not 50 clients starting at the same instant.
      const run = async (warmUpSeconds: number, seconds: number) => {
        const startLatencies: number[] = [];
        let tasks = 0;
        const from = performance.now() + warmUpSeconds * 1000;
        const until = from + seconds * 1000;
        const inWindow = (time: number) => time >= from && time < until;
        const handled = () => {
          if (inWindow(performance.now())) tasks++;
        };
        // Every request's latency, for the closed loop's mean that the start's p99 follows.
        const requestLatencies: number[] = [];
        const timedCall: typeof call = async (...request) => {
          const before = performance.now();
          const entities = await call(...request);
          if (inWindow(before)) requestLatencies.push(performance.now() - before);
          return entities;
        };
        await Promise.all(
          users.map(async (user) => {
            while (performance.now() < until) {
              const before = performance.now();
              const [entry, , , first] = (await timedCall("PUT", "/process", token, {
                code: "approval",
                userId: user.account,
                data: '{"days":2}',
              })) as [number, number, string, { id: string }];
              if (inWindow(before)) startLatencies.push(performance.now() - before);
              await timedCall("POST", `/task/${first.id}`, token, { userId: user.account });
              handled();
              // The head opens the process and handles its to-do step.
              const [process] = (await timedCall("GET", `/process/${entry}`, token, {})) as [
                { tasks: { id: string; code: string; status: number }[] },
              ];
              const step = process.tasks.find((task) => task.code === "approve" && task.status === 1)!;
              await timedCall("POST", `/task/${step.id}`, token, { userId: "head" });
              handled();
            }
          }),
        );
        return { tasks, startLatencies, requestLatencies };
      };
      const measured = await run(WARM_UP_SECONDS, SECONDS);
      describeClosedLoop(measured.requestLatencies, measured.startLatencies);
      // The same load with a worker relaying the engine's outbox as it fills (a push message per
      // to-do; the tenant has no notices and the version no callbacks), against the load without
      // it, and the relayed load with the tenant's statistics kept against the relayed load
      // without, in the order without, relayed, counted, counted, relayed, without: the gateway
      // still warming and the tables' history shift a run's rate more than the relay does, and the
      // order cancels a steady drift. Each run starts from empty workflow tables, left unanalyzed
      // as a new table is.
      const relayedRun = async () => {
        await emptyWorkflowTables(db.url);
        const worker = await startServer(PLATFORM_SERVER, PORT + 1, {
          ...platformEnv(dir.path, db.url, bootstrap),
          BENCH_PROCESS: "worker",
          BENCH_QUEUES: "notify.app",
        });
        return run(WARM_UP_SECONDS, COMPARED_SECONDS).finally(() => worker.stop());
      };
      const plainRun = async () => {
        await emptyWorkflowTables(db.url);
        return run(WARM_UP_SECONDS, COMPARED_SECONDS);
      };
      // The tenant's statistics switched on for the runs between: what keeping them costs.
      const switchStatistics = async (on: boolean) => {
        const sql = postgres(db.url, { max: 1, onnotice: () => {} });
        try {
          await sql`update tenants set settings = jsonb_set(settings, '{workflow}',
                      coalesce(settings -> 'workflow', '{}') || ${sql.json({ statistics: { on, timeZone: "UTC" } })})
                    where domain = 'bench.edu'`;
        } finally {
          await sql.end();
        }
      };
      const countedRun = async () => {
        await switchStatistics(true);
        return relayedRun().finally(() => switchStatistics(false));
      };
      const without = [await plainRun()];
      const relayed = [await relayedRun()];
      const counted = [await countedRun(), await countedRun()];
      relayed.push(await relayedRun());
      without.push(await plainRun());
      const rateOf = (runs: { tasks: number }[]) =>
        runs.reduce((sum, each) => sum + each.tasks, 0) / runs.length / COMPARED_SECONDS;
      const reference = await bareTransactions(db.url, 10);
      return [
        higherIsBetter(
          "workflow.submit-throughput",
          "tasks/s",
          measured.tasks / SECONDS,
          reference,
          THROUGHPUT_RATIO,
          {
            absoluteTarget: 500,
          },
        ),
        higherIsBetter(
          "workflow.submit-throughput-relayed",
          "tasks/s",
          rateOf(relayed),
          rateOf(without),
          RELAYED_RATIO,
        ),
        higherIsBetter(
          "workflow.submit-throughput-statistics",
          "tasks/s",
          rateOf(counted),
          rateOf(relayed),
          STATISTICS_RATIO,
        ),
        // Reference: the start's median in the same run.
        ratioAtMost(
          "workflow.start-p99",
          "ms",
          percentile(measured.startLatencies, 99),
          percentile(measured.startLatencies, 50),
          START_TAIL_RATIO,
          { absoluteTarget: 50 },
        ),
      ];
    } finally {
      await client.close();
      await platform.stop();
      await db.drop();
      await dir.remove();
    }
  },
};
