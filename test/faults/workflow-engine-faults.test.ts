import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import { before, describe, it } from "node:test";
import { promisify } from "node:util";
import { checkConsistency } from "../../workflow/consistency-check.ts";
import { waitUntilRelayed } from "../support/outbox.ts";
import {
  type DistributedSetup,
  distributedSetup,
  PlatformProcess,
  requireRealServices,
} from "../support/platform-processes.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const run = promisify(execFile);
const SECRET = "engine-fault-secret-0123456789abcdefghijk";
const CLIENTS = 50;
/** How long the clients go on after the fault, so commands run on both sides of it. */
const AFTER_FAULT_MS = 3000;

const bootstrap = {
  tenants: [{ domain: "example.edu", name: "Example University" }],
  applications: [
    {
      id: "engine-app",
      secret: SECRET,
      name: "Engine",
      type: "enterprise",
      tenant: "example.edu",
      scopes: ["sys_start", "sys_submit"],
    },
  ],
  users: [
    ...Array.from({ length: CLIENTS }, (_, i) => ({
      tenant: "example.edu",
      account: `applicant${i}`,
      name: `A${i}`,
    })),
    { tenant: "example.edu", account: "head", name: "Head" },
  ],
  workflows: [
    {
      tenant: "example.edu",
      code: "approval",
      name: "Approval",
      versions: [
        {
          online: true,
          definition: {
            graph: {
              nodes: [
                { kind: "start", code: "apply" },
                { kind: "task", code: "approve", assignees: [{ accounts: ["head"] }] },
                { kind: "end", code: "done" },
              ],
              edges: [
                { from: "apply", to: "approve" },
                { from: "approve", to: "done" },
              ],
            },
          },
        },
      ],
    },
  ],
};

interface Envelope {
  errno: number;
  ecode: string;
  error: string;
  entities: unknown[];
}

/**
 * Fifty clients start processes and hand in their forms, as a client written from spec 001 would
 * against a platform that may drop an answer: a request that fails is sent again, a start with the
 * same `Idempotency-Key`, a handling until it is done or found handled. Resolves with the keys of
 * the starts that were answered.
 */
async function clients(gatewayUrl: () => string, token: string, until: () => boolean): Promise<Set<string>> {
  const started = new Set<string>();
  let failed: Error | undefined;
  /** Sends until an envelope comes back (the platform answered), whatever its errno. */
  const answered = async (method: string, path: string, params: Record<string, string>, headers = {}) => {
    const deadline = Date.now() + 60_000;
    let last = "";
    while (!failed) {
      try {
        const response = await fetch(`${gatewayUrl()}/apis/v2${path}?${new URLSearchParams(params)}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...headers },
          signal: AbortSignal.timeout(10_000),
        });
        if (response.status === 200) return (await response.json()) as Envelope;
        last = `${response.status} ${await response.text()}`;
      } catch (error) {
        // The gateway gone or the database away: sent again.
        last = String(error);
      }
      if (Date.now() > deadline) throw new Error(`${method} ${path} unanswered for a minute: ${last}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw failed;
  };
  const client = async (i: number) => {
    while (!until() && !failed) {
      const key = randomUUID();
      const start = await answered(
        "PUT",
        "/process",
        { code: "approval", userId: `applicant${i}` },
        { "idempotency-key": key },
      );
      assert.equal(start.errno, 0, start.error);
      started.add(key);
      const form = start.entities[3] as { id: string };
      const handled = await answered("POST", `/task/${form.id}`, { userId: `applicant${i}` });
      assert.ok(
        handled.errno === 0 || handled.ecode === "TASK_ALREADY_HANDLED",
        `the form handled, or found handled when sent again: ${handled.error}`,
      );
    }
  };
  await Promise.all(
    Array.from({ length: CLIENTS }, (_, i) =>
      client(i).catch((error: Error) => {
        failed ??= error;
      }),
    ),
  );
  if (failed) throw failed;
  return started;
}

/** Runs the clients through `fault`, then checks every process and the relay. */
async function underFault(
  fault: (gateway: { current: PlatformProcess }, env: Record<string, string>) => Promise<void>,
) {
  const setup: DistributedSetup = await distributedSetup(bootstrap);
  const processes: PlatformProcess[] = [];
  try {
    // Every gateway of the platform has its public URL, its tokens' issuer, as production's do.
    const env = { ...setup.env, PUBLIC_URL: "https://workflow.example.edu" };
    const gateway = { current: await PlatformProcess.gateway(env) };
    processes.push(gateway.current, await PlatformProcess.worker(setup.env, ["--all"]));
    const token = await issueToken(
      gateway.current.url,
      { id: "engine-app", secret: SECRET },
      { grant_type: "client_credentials", scope: "sys_start sys_submit" },
    );
    let endAt = Number.POSITIVE_INFINITY;
    const running = clients(
      () => gateway.current.url,
      token,
      () => Date.now() > endAt,
    );
    await waitFor(
      async () => {
        const [row] = await setup.sql<{ n: number }[]>`select count(*)::int as n from workflow_processes`;
        return row!.n >= CLIENTS * 2;
      },
      30_000,
      "the clients under way",
    );
    await fault(gateway, env);
    processes.push(gateway.current);
    endAt = Date.now() + AFTER_FAULT_MS;
    const keys = await running;

    const [counts] = await setup.sql<{ processes: number; keys: number }[]>`
      select (select count(*)::int from workflow_processes) as processes,
             (select count(*)::int from workflow_start_keys) as keys`;
    assert.equal(counts!.keys, keys.size, "every answered start's key kept");
    assert.equal(counts!.processes, keys.size, "one process per start, none started twice");
    assert.deepEqual(await checkConsistency(setup.sql), [], "every process's rows agree");
    await waitUntilRelayed(setup.sql, 60_000, "every event of every committed command relayed");
  } finally {
    await Promise.all(processes.map((process) => process.stop()));
    await setup.cleanup();
  }
}

describe("the workflow engine through a fault, under 50 clients starting and handling processes", () => {
  before(requireRealServices);

  it("the gateway SIGKILLed and started again: no start twice, nothing half written, every event relayed", async () => {
    await underFault(async (gateway, env) => {
      await gateway.current.kill();
      gateway.current = await PlatformProcess.gateway(env);
    });
  });

  it("Postgres restarted: no start twice, nothing half written, every event relayed", async () => {
    await underFault(async () => {
      const [version] = await readdir("/etc/postgresql");
      await run("pg_ctlcluster", ["--skip-systemctl-redirect", version!, "main", "restart"]);
    });
  });
});
