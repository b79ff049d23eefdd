import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { freshDatabase, tempDir } from "../../test/support/platform.ts";
import { authorizationCodeToken, issueToken } from "../../test/support/tokens.ts";
import { atMost, type BenchCase, type BenchResult, ratioAtMost } from "../bench-result.ts";
import { type BenchServer, startServer } from "../load.ts";
import { DATABASE_URL, PLATFORM_SERVER, platformEnv } from "../platform-env.ts";
import { median, percentile } from "../statistics.ts";

const PORT = 18_990;
const SECRET = "bench-push-secret-0123456789abcdefghijkl";
const PASSWORD = "bench-push-password";
const REDIRECT = "https://bench.example.edu/callback";
/** Held polls on the holding gateway: USERS users with POLLS_PER_USER each. */
const USERS = 100;
const POLLS_PER_USER = 100;
const HELD = USERS * POLLS_PER_USER;
/** Publishes timed through the other gateway, each to a user whose polls the holder holds. */
const PUBLISHES = 20;
/** How long the event loop's delay is watched while the connections are held. */
const WATCH_MS = 5000;

/** Opens `count` sockets, each sending `request` (at most 500 connecting at once). */
async function openSockets(port: number, count: number, request: (n: number) => string): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (let start = 0; start < count; start += 500) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(500, count - start) }, async (_, i) => {
        const socket = connect(port, "127.0.0.1");
        socket.setNoDelay(true);
        socket.on("error", () => {});
        await once(socket, "connect");
        socket.write(request(start + i));
        return socket;
      }),
    );
    sockets.push(...batch);
  }
  return sockets;
}

async function closeSockets(sockets: Socket[]): Promise<void> {
  await Promise.all(
    sockets.map((socket) => {
      if (socket.destroyed) return undefined;
      const closed = once(socket, "close");
      socket.destroy();
      return closed;
    }),
  );
}

async function metric(server: BenchServer, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
  const line = text.split("\n").find((each) => each.startsWith(`${name} `));
  return Number(line?.split(" ")[1] ?? Number.NaN);
}

/** The process's resident memory after a full collection (it runs with --expose-gc). */
async function residentBytes(server: BenchServer): Promise<number> {
  const { memory } = (await server.ask("memory")) as { memory: NodeJS.MemoryUsage };
  return memory.rss;
}

/** The event loop's p99 delay over WATCH_MS, off the process's own gauge. */
async function loopDelayMs(server: BenchServer): Promise<number> {
  await metric(server, "nodejs_eventloop_delay_p99_seconds");
  await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
  return (await metric(server, "nodejs_eventloop_delay_p99_seconds")) * 1000;
}

async function waitForHeld(server: BenchServer, count: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await metric(server, "push_subscriptions_held")) < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} polls held after 2 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export const pushBench: BenchCase = {
  name: "push",
  description: `${HELD.toLocaleString("en")} held push polls on one gateway, and publish-to-answer through another`,
  async run(): Promise<BenchResult[]> {
    const dir = await tempDir("op-bench-");
    const db = await freshDatabase(DATABASE_URL);
    const bootstrap = join(dir.path, "bootstrap.json");
    const accounts = Array.from({ length: USERS }, (_, i) => `reader${i}`);
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
            redirectUris: [REDIRECT],
            scopes: ["sys_message_edit", "task"],
          },
        ],
        users: accounts.map((account) => ({
          tenant: "bench.edu",
          account,
          name: account,
          password: PASSWORD,
        })),
      }),
    );
    const env = {
      ...platformEnv(dir.path, db.url, bootstrap),
      BENCH_PROCESS: "gateway",
      METRICS_PUBLIC: "true",
      // Held for the whole measurement, and a user's hundred polls all admitted.
      PUSH_HOLD_MS: "120000",
      PUSH_MAX_HELD_PER_USER: String(POLLS_PER_USER),
    };
    const publisher = await startServer(PLATFORM_SERVER, PORT, {
      ...env,
      PUBLIC_URL: `http://127.0.0.1:${PORT}`,
    });
    let holder: BenchServer | undefined;
    let sockets: Socket[] = [];
    try {
      holder = await startServer(
        PLATFORM_SERVER,
        PORT + 1,
        { ...env, PUBLIC_URL: `http://127.0.0.1:${PORT}` },
        ["--expose-gc"],
      );
      const url = `http://127.0.0.1:${PORT}`;
      const sys = await issueToken(
        url,
        { id: "bench-app", secret: SECRET },
        { grant_type: "client_credentials" },
      );
      const client = { id: "bench-app", secret: SECRET, redirectUri: REDIRECT };
      const tokens: string[] = [];
      for (const account of accounts)
        tokens.push(await authorizationCodeToken(url, client, { account, password: PASSWORD }, "task"));

      // Reference: as many connections that have sent part of a request, which the server holds
      // with its socket and parser and nothing of ours.
      const before = await residentBytes(holder);
      sockets = await openSockets(holder.port, HELD, () => "GET /healthz HTTP/1.1\r\nHost: bench\r\n");
      const bare = await residentBytes(holder);
      const bareDelay = await loopDelayMs(holder);
      await closeSockets(sockets);
      sockets = [];

      const since = Date.now();
      const baseline = await residentBytes(holder);
      const answeredAt = new Map<number, Promise<number>>();
      sockets = await openSockets(holder.port, HELD, (n) => {
        return `GET /message/sub?since=${since} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer ${tokens[n % USERS]}\r\n\r\n`;
      });
      sockets.forEach((socket, n) => {
        answeredAt.set(
          n,
          once(socket, "data").then(
            () => performance.now(),
            () => Number.NaN,
          ),
        );
      });
      await waitForHeld(holder, HELD);
      const held = await residentBytes(holder);
      const heldDelay = await loopDelayMs(holder);

      // Publish-to-answer: each publish through the other gateway answers its user's hundred polls.
      const latencies: number[] = [];
      const publishTimes: number[] = [];
      for (let p = 0; p < PUBLISHES; p++) {
        const user = p;
        const started = performance.now();
        const response = await fetch(`${url}/apis/v2/message`, {
          method: "POST",
          headers: { authorization: `Bearer ${sys}`, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ uid: accounts[user]!, tid: "task", eid: `bench-${p}` }),
        });
        if (!response.ok) throw new Error(`publish: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
        publishTimes.push(performance.now() - started);
        const polls = Array.from({ length: POLLS_PER_USER }, (_, i) => answeredAt.get(user + i * USERS)!);
        for (const answered of await Promise.all(polls)) latencies.push(answered - started);
      }

      const perPoll = (held - baseline) / HELD / 1024;
      const perConnection = (bare - before) / HELD / 1024;
      return [
        ratioAtMost("push.held-poll-memory", "KB", perPoll, perConnection, 6),
        ratioAtMost("push.held-polls-loop-delay-p99", "ms", heldDelay, bareDelay, 1.5),
        atMost("push.publish-to-answer-p99", "ms", percentile(latencies, 99), median(publishTimes), 100),
      ];
    } finally {
      await closeSockets(sockets);
      await holder?.stop();
      await publisher.stop();
      await db.drop();
      await dir.remove();
    }
  },
};
