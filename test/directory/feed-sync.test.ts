import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startWorker } from "../../bin/processes.ts";
import { loadConfig } from "../../runtime/config.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const ADMIN_TOKEN = "feed-admin-token-0123456789abcdefghijklmnop";
const HR_SECRET = "feed-hr-secret-0123456789abcdefghijklmnopq";
const FEED_AUTH = "Bearer feed-provider-secret";
process.env.TEST_FEED_AUTHORIZATION = FEED_AUTH;

type Row = Record<string, unknown>;
type Entity = "users" | "depts" | "posts" | "occupies";

/**
 * A tenant's enterprise feed: the four addresses under a prefix and suffix, answering rows updated
 * at or after `timestamp` (or, as an old provider does, everything with null timestamps).
 */
class FeedProvider {
  rows: Record<Entity, Row[]> = { users: [], depts: [], posts: [], occupies: [] };
  honoursTimestamps = true;
  /** An address that fails, and how. */
  failing: { entity: Entity; how: "http" | "truncated" | "errno" } | undefined;
  delayMs = 0;
  clock = 1_000;
  readonly requests: { path: string; timestamp: string | null; authorization: string | undefined }[] = [];
  private server!: Server;
  url = "";

  constructor(private readonly addresses: (entity: Entity) => string) {}

  async start(): Promise<void> {
    this.server = createServer(async (request, response) => {
      const url = new URL(request.url!, "http://feed");
      const timestamp = url.searchParams.get("timestamp");
      this.requests.push({ path: url.pathname, timestamp, authorization: request.headers.authorization });
      const entity = (["users", "depts", "posts", "occupies"] as const).find(
        (name) => url.pathname === `/hr/${this.addresses(name)}`,
      );
      if (!entity || request.headers.authorization !== FEED_AUTH) {
        response.writeHead(entity ? 401 : 404).end();
        return;
      }
      if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      if (this.failing?.entity === entity && this.failing.how === "http") {
        response.writeHead(502).end("upstream down");
        return;
      }
      const since = timestamp === null ? undefined : Number(timestamp);
      const rows = this.honoursTimestamps
        ? this.rows[entity].filter(
            (row) => since === undefined || typeof row !== "object" || (row.timestamp as number) >= since,
          )
        : this.rows[entity].map((row) => ({ ...row, timestamp: null }));
      let body = JSON.stringify({ entities: rows, total: rows.length, errno: 0, error: "" });
      if (this.failing?.entity === entity && this.failing.how === "errno")
        body = JSON.stringify({ errno: 500, error: "database of the HR system is down", entities: [] });
      if (this.failing?.entity === entity && this.failing.how === "truncated") body = body.slice(0, -20);
      response.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hr/`;
  }

  /** Adds or replaces rows (by their key), stamped with the provider's next time. */
  put(entity: Entity, key: string, ...rows: Row[]): void {
    for (const row of rows) {
      const stamped = { ...row, timestamp: this.clock };
      const index = this.rows[entity].findIndex((existing) => existing[key] === row[key]);
      if (index >= 0) this.rows[entity][index] = stamped;
      else this.rows[entity].push(stamped);
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface Run {
  id: string;
  trigger: string;
  status: string;
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  since: number | null;
  counts: Record<
    Entity,
    { received: number; rejected: number; applied: number; disabled: number; full: boolean }
  >;
  error: string | null;
}

for (const mode of await testModes()) {
  describe(`enterprise feed sync (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let env: Record<string, string>;
    let token: string;
    const incremental = new FeedProvider((entity) => `get_${entity}_since`);
    const legacy = new FeedProvider((entity) => entity);
    /** A scheduled feed whose addresses do not exist: every run fails. */
    const SCHEDULED_FAILING_FEED = () => ({
      tenant: "c.edu",
      url: incremental.url,
      addresses: "gone_{entity}",
      authorizationEnv: "TEST_FEED_AUTHORIZATION",
      intervalSeconds: 3600,
    });

    async function feed(domain: string) {
      return (await (await admin(domain)).json()) as {
        enabled: boolean;
        nextRunAt: string | null;
        retryAt: string | null;
        runs: Run[];
      };
    }

    const admin = (path: string, method = "GET") =>
      fetch(`${platform.url}/admin/feeds/${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });

    async function runs(domain: string): Promise<Run[]> {
      return ((await (await admin(domain)).json()) as { runs: Run[] }).runs;
    }

    /** Waits for a run to end. */
    async function ended(domain: string, runId: string): Promise<Run> {
      let run: Run | undefined;
      await waitFor(
        async () => {
          run = (await (await admin(`${domain}/runs/${runId}`)).json()) as Run;
          return run.status !== "queued" && run.status !== "running";
        },
        20_000,
        `run ${runId} of the feed of ${domain}`,
      );
      return run!;
    }

    /** Triggers a run on the admin API and waits for it to finish. */
    async function sync(domain: string): Promise<Run> {
      const response = await admin(`${domain}/runs`, "POST");
      assert.equal(response.status, 202);
      return ended(domain, ((await response.json()) as Run).id);
    }

    async function holders(position: string, domain = "a.edu"): Promise<string[]> {
      const response = await fetch(
        `${platform.url}/apis/v2/position/${position}/users?domain=${domain}&limit=1000`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      const body = (await response.json()) as {
        errno: number;
        error: string;
        entities: { account: string }[];
      };
      assert.equal(body.errno, 0, body.error);
      return body.entities.map((user) => user.account);
    }

    async function user(account: string, domain = "a.edu") {
      const response = await fetch(`${platform.url}/apis/v2/triple/user/${account}@${domain}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return (await response.json()) as { ecode: string; entities: { name: string; email: string | null }[] };
    }

    before(async () => {
      await incremental.start();
      await legacy.start();
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const bootstrap = {
        tenants: [
          { domain: "a.edu", name: "University A" },
          { domain: "b.edu", name: "University B" },
          { domain: "c.edu", name: "University C" },
        ],
        applications: [
          { id: "hr-global", secret: HR_SECRET, name: "HR", scopes: ["sys_triple", "sys_triple_edit"] },
        ],
        feeds: [
          {
            tenant: "a.edu",
            url: incremental.url,
            addresses: "get_{entity}_since",
            authorizationEnv: "TEST_FEED_AUTHORIZATION",
            intervalSeconds: 0,
          },
          {
            tenant: "b.edu",
            url: legacy.url,
            authorizationEnv: "TEST_FEED_AUTHORIZATION",
            intervalSeconds: 0,
          },
          SCHEDULED_FAILING_FEED(),
        ],
      };
      env = await withBootstrap({ ...prepared.env, ADMIN_TOKEN }, bootstrap);
      platform = await startTestPlatform(env);
      token = await issueToken(
        platform.url,
        { id: "hr-global", secret: HR_SECRET },
        { grant_type: "client_credentials", scope: "sys_triple sys_triple_edit" },
      );
    });
    after(async () => {
      await platform?.stop();
      await cleanup?.();
      await incremental.stop();
      await legacy.stop();
    });

    it("pulls a whole feed from renamed addresses, then only what changed since the last run", async () => {
      incremental.put("depts", "organizeId", {
        organizeId: "CS",
        organizeName: "Computer Science",
        parentOrganizeId: null,
      });
      incremental.put("depts", "organizeId", {
        organizeId: "AI",
        organizeName: "AI Lab",
        parentOrganizeId: "CS",
      });
      incremental.put("posts", "postCode", {
        postCode: "PROF",
        postName: "Professor",
        formal: true,
        bizTypes: [{ bizType: "teaching" }],
      });
      incremental.put("posts", "postCode", { postCode: "HEAD", postName: "Head" });
      incremental.put(
        "users",
        "account",
        { account: "wang", name: "王芳", email: "wang@a.edu" },
        { account: "li", name: "李雷" },
        { account: "chen", name: "陈晨" },
      );
      incremental.put(
        "occupies",
        "account",
        {
          account: "wang",
          deptCode: "CS",
          postCode: "PROF",
          userCode: "T100",
          bizes: [{ bizType: "teaching", bizCode: "C1" }],
        },
        { account: "li", deptCode: "AI", postCode: "PROF", userCode: "T101", bizes: [] },
        { account: "chen", deptCode: "AI", postCode: "HEAD" },
      );
      const first = await sync("a.edu");
      assert.equal(first.status, "succeeded", first.error ?? "");
      assert.equal(first.since, null);
      assert.deepEqual(
        Object.fromEntries(Object.entries(first.counts).map(([entity, counts]) => [entity, counts.applied])),
        { users: 3, depts: 2, posts: 2, occupies: 3 },
      );
      assert.deepEqual(await holders("*:PROF"), ["li", "wang"]);
      assert.deepEqual(await holders("AI:*"), ["chen", "li"]);
      const pulled = incremental.requests.slice(-4);
      assert.deepEqual(
        pulled.map((request) => request.path),
        ["/hr/get_users_since", "/hr/get_depts_since", "/hr/get_posts_since", "/hr/get_occupies_since"],
        "dependency order, renamed addresses",
      );
      assert.ok(pulled.every((request) => request.timestamp === null && request.authorization === FEED_AUTH));

      // The provider's clock moves past the first run; one user changes.
      incremental.clock = Math.floor(Date.now() / 1000) + 5;
      incremental.put("users", "account", { account: "wang", name: "王芳芳", email: "wang@a.edu" });
      const second = await sync("a.edu");
      assert.equal(second.status, "succeeded", second.error ?? "");
      assert.ok(second.since !== null && second.since >= incremental.clock - 120);
      assert.ok(
        incremental.requests.slice(-4).every((request) => request.timestamp === String(second.since)),
      );
      assert.equal(second.counts.users.received, 1, "only what changed since the last run");
      assert.equal(second.counts.users.applied, 1);
      assert.equal((await user("wang")).entities[0]!.name, "王芳芳");
    });

    it("disables what the feed disables, and its occupancies with it", async () => {
      incremental.clock += 10;
      incremental.put("depts", "organizeId", {
        organizeId: "AI",
        organizeName: "AI Lab",
        parentOrganizeId: "CS",
        disabled: true,
      });
      incremental.put("users", "account", { account: "wang", name: "王芳芳", disabled: true });
      const run = await sync("a.edu");
      assert.equal(run.status, "succeeded", run.error ?? "");
      assert.deepEqual(await holders("AI:*"), []);
      assert.deepEqual(await holders("*:PROF"), []);
      assert.equal((await user("wang")).ecode, "NOT_FOUND");
      incremental.clock += 10;
      incremental.put("depts", "organizeId", {
        organizeId: "AI",
        organizeName: "AI Lab",
        parentOrganizeId: "CS",
      });
      incremental.put("users", "account", { account: "wang", name: "王芳芳" });
      await sync("a.edu");
      assert.deepEqual(await holders("AI:*"), ["chen", "li"], "enabled again, its occupancies count again");
    });

    it("rejects malformed rows one by one with the reason and applies the rest", async () => {
      incremental.clock += 10;
      incremental.rows.users.push(
        { account: "nameless", timestamp: incremental.clock },
        { account: null, name: "No account", timestamp: incremental.clock },
        { account: "zhao", name: "赵云", timestamp: incremental.clock },
      );
      incremental.rows.occupies.push(
        { account: "zhao", deptCode: "CS", postCode: "HEAD", bizes: null, timestamp: incremental.clock },
        { account: "zhao", deptCode: "NOPE", postCode: "HEAD", timestamp: incremental.clock },
        { account: "zhao", deptCode: "CS", postCode: "PROF", bizes: [], timestamp: incremental.clock },
      );
      incremental.rows.posts.push(42 as unknown as Row);
      const run = await sync("a.edu");
      assert.equal(run.status, "succeeded", run.error ?? "");
      assert.equal(run.counts.users.rejected, 2);
      assert.equal(run.counts.occupies.rejected, 2);
      assert.equal(run.counts.posts.rejected, 1);
      const detail = (await (await admin(`a.edu/runs/${run.id}`)).json()) as {
        rejects: { entity: string; key: string | null; reason: string }[];
      };
      const reasons = detail.rejects
        .map((reject) => `${reject.entity} ${reject.key}: ${reject.reason}`)
        .sort();
      assert.deepEqual(reasons, [
        "occupies zhao: bizes is not an array",
        "occupies zhao:NOPE:HEAD: no department NOPE",
        "posts null: not a JSON object",
        "users nameless: name is null",
        "users null: account is null",
      ]);
      assert.equal((await user("zhao")).entities[0]!.name, "赵云");
      assert.ok((await holders("CS:PROF")).includes("zhao"));
      incremental.rows.posts.pop();
    });

    it("keeps manual edits the feed did not make", async () => {
      const edited = await fetch(`${platform.url}/apis/v2/triple/dept/CS@a.edu?tags=flagship`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(((await edited.json()) as { errno: number }).errno, 0);
      const granted = await fetch(
        `${platform.url}/apis/v2/position/CS:HEAD/users?domain=a.edu&code=li&source=HR-OFFICE`,
        {
          method: "PUT",
          headers: { authorization: `Bearer ${token}` },
        },
      );
      assert.equal(((await granted.json()) as { errno: number }).errno, 0);
      incremental.clock += 10;
      incremental.put("depts", "organizeId", {
        organizeId: "CS",
        organizeName: "Renamed by the feed",
        parentOrganizeId: null,
      });
      incremental.put("occupies", "account", {
        account: "li",
        deptCode: "CS",
        postCode: "HEAD",
        disabled: true,
      });
      const run = await sync("a.edu");
      assert.equal(run.status, "succeeded", run.error ?? "");
      const dept = (await (
        await fetch(`${platform.url}/apis/v2/triple/dept/CS@a.edu`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as { entities: { name: string; tags: string; source: string }[] };
      assert.equal(
        dept.entities[0]!.name,
        "Computer Science",
        "the manually edited department keeps its name",
      );
      assert.equal(dept.entities[0]!.source, "PUSH");
      assert.ok((await holders("CS:HEAD")).includes("li"), "a manual grant stays");
    });

    it("changes nothing when the feed fails half-way, and succeeds on a later run", async () => {
      const before = await holders("*:*");
      incremental.clock += 10;
      incremental.put("users", "account", { account: "li", name: "Changed name" });
      incremental.put("occupies", "account", {
        account: "chen",
        deptCode: "AI",
        postCode: "HEAD",
        disabled: true,
      });
      const asked = new Set<number | null>();
      for (const how of ["http", "truncated", "errno"] as const) {
        incremental.failing = { entity: "occupies", how };
        const failed = await sync("a.edu");
        asked.add(failed.since);
        assert.equal(failed.status, "failed", how);
        assert.match(failed.error!, /^occupies: /);
        assert.equal((await user("li")).entities[0]!.name, "李雷", `users are unchanged after ${how}`);
        assert.deepEqual(await holders("*:*"), before);
      }
      incremental.failing = undefined;
      const recovered = await sync("a.edu");
      assert.equal(recovered.status, "succeeded", recovered.error ?? "");
      assert.deepEqual([...asked], [recovered.since], "a failed run does not move the timestamp");
      assert.equal((await user("li")).entities[0]!.name, "Changed name");
      assert.ok(!(await holders("AI:*")).includes("chen"));
    });

    it("answers a trigger with the queued run and its address; a run still waiting answers again", async () => {
      const response = await admin("a.edu/runs", "POST");
      assert.equal(response.status, 202);
      const run = (await response.json()) as Run;
      assert.equal(run.status, "queued");
      assert.equal(run.trigger, "manual");
      assert.equal(run.startedAt, null);
      assert.ok(Date.parse(run.queuedAt) > Date.now() - 10_000);
      const location = response.headers.get("location");
      assert.equal(location, `/admin/feeds/a.edu/runs/${run.id}`);
      const done = await ended("a.edu", run.id);
      assert.equal(done.status, "succeeded", done.error ?? "");
      assert.ok(done.startedAt && Date.parse(done.startedAt) >= Date.parse(run.queuedAt));
      const listed = await fetch(`${platform.url}${location}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(((await listed.json()) as Run).id, run.id);
    });

    it("tries a scheduled feed's failed run again after 30 s, then 5 min, then at its schedule", async () => {
      const failedAt = (run: Run) => Date.parse(run.finishedAt!);
      const seconds = (from: number, to: string | null) => (Date.parse(to!) - from) / 1000;
      let first: Run | undefined;
      await waitFor(
        async () => {
          first = (await feed("c.edu")).runs.at(-1);
          return first !== undefined && first.status === "failed";
        },
        20_000,
        "the scheduled run at start to fail",
      );
      assert.equal(first!.trigger, "schedule");
      assert.match(first!.error!, /^users: the feed answered HTTP 404/);
      let state = await feed("c.edu");
      assert.ok(Math.abs(seconds(failedAt(first!), state.retryAt) - 30) < 5, `retry at ${state.retryAt}`);
      assert.ok(Math.abs(seconds(failedAt(first!), state.nextRunAt) - 3600) < 10);

      const second = await sync("c.edu");
      assert.equal(second.status, "failed");
      state = await feed("c.edu");
      assert.ok(Math.abs(seconds(failedAt(second), state.retryAt) - 300) < 5, `retry at ${state.retryAt}`);

      const third = await sync("c.edu");
      assert.equal(third.status, "failed");
      state = await feed("c.edu");
      assert.equal(state.retryAt, null, "after the second retry, the schedule");
      assert.ok(state.nextRunAt !== null);

      const admin_only = await feed("a.edu");
      assert.equal(admin_only.nextRunAt, null, "a feed run on the admin API only has no schedule");
      assert.equal(admin_only.retryAt, null, "and its failed runs are not tried again");
    });

    it("follows a feed's new interval at once, and refuses to queue a run of a disabled feed", async () => {
      const shortened = await fetch(`${platform.url}/admin/bootstrap`, {
        method: "PUT",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ feeds: [{ ...SCHEDULED_FAILING_FEED(), intervalSeconds: 120 }] }),
      });
      assert.equal(shortened.status, 200, await shortened.text());
      const next = Date.parse((await feed("c.edu")).nextRunAt!);
      assert.ok(next <= Date.now() + 121_000, `the next run at ${new Date(next).toISOString()}`);
      const disabled = await fetch(`${platform.url}/admin/bootstrap`, {
        method: "PUT",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ feeds: [{ ...SCHEDULED_FAILING_FEED(), enabled: false }] }),
      });
      assert.equal(disabled.status, 200, await disabled.text());
      const refused = await admin("c.edu/runs", "POST");
      assert.equal(refused.status, 409);
      assert.match(((await refused.json()) as { error: string }).error, /disabled/);
      const state = await feed("c.edu");
      assert.equal(state.enabled, false);
      assert.equal(state.nextRunAt, null);
    });

    it("lists every tenant's feed with its latest run, a page at a time", async () => {
      type Listing = { tenant: string; lastRun: { id: string; status: string } | null };
      const list = (query: string) =>
        fetch(`${platform.url}/admin/feeds?${query}`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
      const first = (await (await list("limit=2")).json()) as { items: Listing[]; next: string | null };
      assert.deepEqual(
        first.items.map((item) => item.tenant),
        ["a.edu", "b.edu"],
      );
      assert.ok(first.next);
      assert.deepEqual(first.items[0]!.lastRun?.id, (await feed("a.edu")).runs[0]!.id);
      const rest = (await (await list(`limit=2&after=${first.next}`)).json()) as {
        items: Listing[];
        next: string | null;
      };
      assert.deepEqual(
        rest.items.map((item) => [item.tenant, item.lastRun?.status]),
        [["c.edu", "failed"]],
      );
      assert.equal(rest.next, null);
      assert.equal((await list("after=not-a-cursor")).status, 400);
    });

    it("gives a provider without timestamps a full sync that disables what it leaves out", async () => {
      legacy.honoursTimestamps = false;
      legacy.put("depts", "organizeId", { organizeId: "LAW", organizeName: "Law School" });
      legacy.put("posts", "postCode", { postCode: "LECT", postName: "Lecturer" });
      legacy.put("users", "account", { account: "sun", name: "孙丽" }, { account: "zhou", name: "周杰" });
      legacy.put(
        "occupies",
        "account",
        { account: "sun", deptCode: "LAW", postCode: "LECT" },
        { account: "zhou", deptCode: "LAW", postCode: "LECT" },
      );
      const first = await sync("b.edu");
      assert.equal(first.status, "succeeded", first.error ?? "");
      assert.equal(first.counts.users.full, true);
      assert.deepEqual(await holders("LAW:*", "b.edu"), ["sun", "zhou"]);
      legacy.rows.users = legacy.rows.users.filter((row) => row.account !== "zhou");
      legacy.rows.occupies = legacy.rows.occupies.filter((row) => row.account !== "zhou");
      const second = await sync("b.edu");
      assert.equal(second.counts.users.disabled, 1);
      assert.equal(second.counts.occupies.disabled, 1);
      assert.equal((await user("zhou", "b.edu")).ecode, "NOT_FOUND");
      assert.deepEqual(await holders("LAW:*", "b.edu"), ["sun"]);
      assert.ok(
        legacy.requests.filter((request) => request.path === "/hr/users").at(-1)!.timestamp !== null,
        "the timestamp is still sent",
      );
      assert.deepEqual(await holders("*:*"), await holders("*:*"), "tenant A is untouched");
    });

    if (mode.name === "distributed") {
      it("runs once when two workers are triggered at once", async () => {
        const worker = await startWorker(loadConfig({ ...env, LOG_LEVEL: "silent" }), ["feed.sync"]);
        try {
          incremental.delayMs = 300;
          const before = (await runs("a.edu")).length;
          const triggers = await Promise.all([admin("a.edu/runs", "POST"), admin("a.edu/runs", "POST")]);
          assert.deepEqual(
            triggers.map((response) => response.status),
            [202, 202],
          );
          await waitFor(async () => {
            const all = await runs("a.edu");
            return all.length > before && all[0]!.status !== "running";
          }, 20_000);
          await new Promise((resolve) => setTimeout(resolve, 1500));
          const added = (await runs("a.edu")).slice(0, (await runs("a.edu")).length - before);
          assert.deepEqual(
            added.map((run) => run.status),
            ["succeeded"],
            "one run for both triggers",
          );
          assert.deepEqual(await holders("*:PROF"), [...new Set(await holders("*:PROF"))], "no duplicates");
        } finally {
          incremental.delayMs = 0;
          await worker.stop();
        }
      });
    }
  });
}
