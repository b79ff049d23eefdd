import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { waitFor } from "../support/wait.ts";
import { type Envelope, WorkflowClient } from "../support/workflow-client.ts";
import {
  otherTenantApplication,
  PORTAL_REDIRECT,
  portalApplication,
  portalUserTokens,
  sysToken,
  WORKFLOW_TENANTS,
} from "../support/workflow-fixture.ts";

/**
 * Who may do what, over HTTP: an app's starters (workflow X grants, by account and by position,
 * followed through the directory as the feed changes it) in 2.1, 3.2, 4.1 and 4.10; the access
 * grants on positions (7.1-7.4, 1.7) given by a tenant administrator (enterprise W); in both data
 * modes, and never across tenants.
 */

const ADMIN_TOKEN = "access-grants-admin-token-0123456789abcdef";
const SECRET = "access-grants-secret-0123456789abcdefghijk";
const USER_SCOPES = "start app process access access_edit";
const SYS_SCOPES = "sys_start sys_app sys_process sys_access";
const BASES = ["/apis/v2", "/apis/v2d"] as const;

type App = { code: string; startable?: boolean };
type Access = { scope: string; permission: string; object: string; via?: string; position?: unknown };
type Grant = {
  permission: string;
  user: { account: string } | null;
  position: { dept: { code: string }; post: { code: string } } | null;
};

/** The tenant's enterprise feed: answers whatever occupancies the test puts in it, in full. */
class Feed {
  occupies: Record<string, unknown>[] = [];
  private server!: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const entity = new URL(request.url!, "http://feed").pathname.slice("/hr/".length);
      const entities = entity === "occupies" ? this.occupies : [];
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ errno: 0, error: "", entities, total: entities.length }));
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hr/`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const definition = {
  schema: { fields: [{ name: "note", type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply", name: "Apply" },
      { kind: "end", code: "done", name: "Done" },
    ],
    edges: [{ from: "apply", to: "done" }],
  },
};

const workflow = (tenant: string, code: string, fields: Record<string, unknown> = {}) => ({
  tenant,
  code,
  name: code,
  recommendation: 1,
  ...fields,
  versions: [{ definition, online: true, beta: true }],
});

for (const mode of await testModes()) {
  describe(`access grants and app starters (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    const feed = new Feed();
    let tokens: Record<string, string> = {};
    let sys: string;
    let otherSys: string;
    const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);
    const call = api.call.bind(api);
    const ok = api.ok.bind(api);
    const codes = (body: Envelope<App>) => body.entities.map((app) => app.code);
    const doing = async (token: string, base: string) =>
      (await ok("GET", "/me/processes/doing", token, {}, base)).total;

    before(async () => {
      await feed.start();
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const person = (tenant: string, account: string) => ({
        tenant,
        account,
        name: account,
        password: "a-password-for-everyone",
      });
      const env = await withBootstrap(prepared.env, {
        tenants: WORKFLOW_TENANTS,
        applications: [
          portalApplication(SECRET, [...USER_SCOPES.split(" "), ...SYS_SCOPES.split(" ")]),
          {
            ...otherTenantApplication(SECRET, [...USER_SCOPES.split(" "), ...SYS_SCOPES.split(" ")]),
            redirectUris: [PORTAL_REDIRECT],
          },
        ],
        users: [
          ...["alice", "bob", "carol", "dan", "erin", "frank"].map((account) =>
            person("example.edu", account),
          ),
          person("other.edu", "olga"),
          person("other.edu", "oscar"),
        ],
        departments: [
          { tenant: "example.edu", code: "cs", name: "Computer Science" },
          { tenant: "example.edu", code: "math", name: "Mathematics" },
          { tenant: "other.edu", code: "cs", name: "Other CS" },
        ],
        posts: [
          { tenant: "example.edu", code: "staff", name: "Staff" },
          { tenant: "example.edu", code: "clerk", name: "Clerk" },
          { tenant: "example.edu", code: "head", name: "Head" },
          { tenant: "other.edu", code: "staff", name: "Staff" },
        ],
        positions: [
          { tenant: "example.edu", account: "bob", dept: "cs", post: "staff" },
          { tenant: "example.edu", account: "frank", dept: "math", post: "head" },
          { tenant: "other.edu", account: "oscar", dept: "cs", post: "staff" },
        ],
        feeds: [{ tenant: "example.edu", url: feed.url, intervalSeconds: 0 }],
        workflows: [
          // Started by alice (account) and by whoever holds a clerk post (any department) or cs:staff.
          workflow("example.edu", "leave", {
            starters: { accounts: ["alice"], positions: ["cs:staff", "*:clerk"] },
          }),
          workflow("example.edu", "survey"),
          workflow("other.edu", "leave", { starters: { accounts: ["olga"] } }),
        ],
        tenantAdministrators: [
          { tenant: "example.edu", accounts: ["erin"] },
          { tenant: "other.edu", accounts: ["olga"] },
        ],
      });
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN });
      tokens = await portalUserTokens(
        platform.url,
        SECRET,
        ["alice", "bob", "carol", "dan", "erin", "frank"],
        USER_SCOPES,
      );
      Object.assign(
        tokens,
        await portalUserTokens(platform.url, SECRET, ["olga", "oscar"], USER_SCOPES, {
          id: "other",
          redirectUri: PORTAL_REDIRECT,
        }),
      );
      sys = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES);
      otherSys = await sysToken(platform.url, "other", SECRET, SYS_SCOPES);
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
      await feed.stop();
    });

    it("lists and starts an app with starters for a starter by account and by position, in both data modes", async () => {
      for (const base of BASES) {
        for (const starter of ["alice", "bob"]) {
          const token = tokens[starter]!;
          assert.deepEqual(codes(await ok<App>("GET", "/me/apps", token, {}, base)), ["leave", "survey"]);
          const [app] = (await ok<App>("GET", "/app/leave", token, {}, base)).entities;
          assert.equal(app!.startable, true, `${starter} may start leave (${base})`);
          const before = await doing(token, base);
          await ok("PUT", "/process", token, { code: "leave" }, base);
          assert.equal(await doing(token, base), before + 1, `${starter} started leave (${base})`);
        }
        const recommended = await ok<App>("GET", "/apps/recommended", sys, { userId: "bob" }, base);
        assert.deepEqual(codes(recommended).sort(), ["leave", "survey"]);
      }
    });

    it("refuses anyone else, user or sys token naming them, starting nothing; lists leave the app out", async () => {
      for (const base of BASES) {
        const token = tokens.carol!;
        assert.deepEqual(codes(await ok<App>("GET", "/me/apps", token, {}, base)), ["survey"]);
        assert.deepEqual(codes(await ok<App>("GET", "/user/carol/apps", sys, {}, base)), ["survey"]);
        assert.deepEqual(codes(await ok<App>("GET", "/apps/recommended", sys, { userId: "carol" }, base)), [
          "survey",
        ]);
        assert.deepEqual(
          codes(await ok<App>("GET", "/apps/recommended", sys, {}, base)).sort(),
          ["leave", "survey"],
          "a sys token naming no user sees every startable app",
        );
        assert.equal((await ok<App>("GET", "/app/leave", token, {}, base)).entities[0]!.startable, false);
        const before = await doing(token, base);
        const refused = await call("PUT", "/process", token, { code: "leave" }, base);
        assert.deepEqual(
          [refused.status, refused.body.errno, refused.body.ecode],
          [200, 40310, "NOT_A_STARTER"],
        );
        const bySys = await call("PUT", "/process", sys, { code: "leave", userId: "carol" }, base);
        assert.equal(bySys.body.ecode, "NOT_A_STARTER");
        assert.equal(await doing(token, base), before, "nothing was started");
        // An app naming no starters is everyone's.
        await ok("PUT", "/process", token, { code: "survey" }, base);
        assert.equal(await doing(token, base), before + 1);
      }
    });

    it("lets a user the feed moves into a starter post start at the next request, and not once moved out", async () => {
      const token = tokens.dan!;
      assert.equal((await call("PUT", "/process", token, { code: "leave" })).body.ecode, "NOT_A_STARTER");
      const sync = async () => {
        const response = await fetch(`${platform.url}/admin/feeds/example.edu/runs`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        assert.equal(response.status, 202);
        const { id } = (await response.json()) as { id: string };
        let status = "queued";
        await waitFor(
          async () => {
            const run = await fetch(`${platform.url}/admin/feeds/example.edu/runs/${id}`, {
              headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
            });
            status = ((await run.json()) as { status: string }).status;
            return status !== "queued" && status !== "running";
          },
          20_000,
          "the feed's run",
        );
        assert.equal(status, "succeeded");
      };
      feed.occupies = [{ account: "dan", deptCode: "math", postCode: "clerk", timestamp: null }];
      await sync();
      for (const base of BASES) {
        assert.deepEqual(codes(await ok<App>("GET", "/me/apps", token, {}, base)), ["leave", "survey"]);
        await ok("PUT", "/process", token, { code: "leave" }, base);
      }
      feed.occupies = [
        { account: "dan", deptCode: "math", postCode: "clerk", timestamp: null, disabled: true },
      ];
      await sync();
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps", token)), ["survey"]);
      assert.equal((await call("PUT", "/process", token, { code: "leave" })).body.ecode, "NOT_A_STARTER");
    });

    it("7.3 by a tenant administrator grants W on a position to a user and to a position; 7.2, 1.7 and 7.1 show them; 7.4 revokes", async () => {
      const path = "/access/position/cs:staff/users";
      const erin = tokens.erin!;
      const accounts = (body: Envelope<Grant>) =>
        body.entities.map((grant) =>
          grant.user ? grant.user.account : `${grant.position!.dept.code}:${grant.position!.post.code}`,
        );
      await ok("PUT", path, erin, { code: "carol", permission: "W" });
      const granted = await ok<Grant>("PUT", path, erin, { position: "math:head", permission: "W" });
      assert.deepEqual(accounts(granted), ["carol", "math:head"]);
      assert.deepEqual(accounts(await ok<Grant>("GET", path, erin)), ["carol"], "administrators only");
      const withPositions = await ok<Grant>("GET", path, erin, { includePositions: "true" });
      assert.deepEqual(accounts(withPositions), ["carol", "math:head"]);
      assert.ok(withPositions.entities.every((grant) => grant.permission === "W"));

      // 1.7: carol holds it herself, frank through the math:head post he holds.
      const positionAccesses = (body: Envelope<Access>) =>
        body.entities.filter((access) => access.scope === "position");
      const carolOwn = positionAccesses(await ok<Access>("GET", "/me/accesses", tokens.carol!));
      assert.deepEqual(
        carolOwn.map(({ object, permission, via }) => ({ object, permission, via })),
        [{ object: "cs:staff", permission: "W", via: undefined }],
      );
      assert.ok(carolOwn[0]!.position, "a position's access carries the position");
      const frankOwn = positionAccesses(await ok<Access>("GET", "/me/accesses", tokens.frank!));
      assert.deepEqual(
        frankOwn.map(({ object, via }) => ({ object, via })),
        [{ object: "cs:staff", via: "math:head" }],
      );
      const bySys = positionAccesses(await ok<Access>("GET", "/user/frank/accesses", sys));
      assert.deepEqual(bySys, frankOwn, "7.1 answers what 1.7 does");
      const erinOwn = await ok<Access>("GET", "/user/erin/accesses", sys);
      assert.deepEqual(
        erinOwn.entities.map(({ scope, object, permission }) => ({ scope, object, permission })),
        [{ scope: "enterprise", object: "example.edu", permission: "W" }],
      );
      const aliceOwn = await ok<Access>("GET", "/me/accesses", tokens.alice!);
      assert.deepEqual(
        aliceOwn.entities.map(({ scope, object, permission }) => ({ scope, object, permission })),
        [{ scope: "workflow", object: "leave", permission: "X" }],
      );

      // A holder of W on the position manages it too: frank, through his post.
      await ok("PUT", path, tokens.frank!, { code: "dan", permission: "R" });
      assert.deepEqual(accounts(await ok<Grant>("GET", path, tokens.dan!)), ["carol", "dan"], "R reads");

      // Test data's grants are apart: none of these hold there.
      assert.deepEqual(accounts(await ok<Grant>("GET", path, erin, {}, "/apis/v2d")), []);
      assert.deepEqual(
        positionAccesses(await ok<Access>("GET", "/me/accesses", tokens.carol!, {}, "/apis/v2d")),
        [],
      );

      await ok("DELETE", path, erin, { code: "dan" });
      await ok("DELETE", path, erin, { position: "math:head", permission: "W" });
      assert.deepEqual(accounts(await ok<Grant>("GET", path, erin, { includePositions: "true" })), ["carol"]);
      assert.deepEqual(positionAccesses(await ok<Access>("GET", "/me/accesses", tokens.frank!)), []);
      await ok("DELETE", path, erin, { code: "carol" });
      assert.deepEqual(accounts(await ok<Grant>("GET", path, erin)), []);
    });

    it("refuses 7.2-7.4 to a plain user, changing nothing, and refuses malformed grants", async () => {
      const path = "/access/position/cs:staff/users";
      const refused = await call("PUT", path, tokens.alice!, { code: "alice", permission: "W" });
      assert.deepEqual([refused.status, refused.body.ecode], [200, "NOT_AN_ADMINISTRATOR"]);
      assert.equal((await call("GET", path, tokens.alice!)).body.ecode, "NOT_AN_ADMINISTRATOR");
      assert.equal(
        (await call("DELETE", path, tokens.alice!, { code: "carol" })).body.ecode,
        "NOT_AN_ADMINISTRATOR",
      );
      assert.deepEqual(
        (await ok<Access>("GET", "/me/accesses", tokens.alice!)).entities.map((access) => access.scope),
        ["workflow"],
        "nothing was granted",
      );
      const erin = tokens.erin!;
      assert.equal((await call("PUT", path, erin, { permission: "W" })).status, 400, "code or position");
      assert.equal(
        (await call("PUT", path, erin, { code: "bob", position: "cs:staff", permission: "W" })).status,
        400,
        "not both",
      );
      assert.equal((await call("PUT", path, erin, { code: "bob", permission: "Z" })).status, 400);
      const scope = await call("PUT", "/access/workflow/leave/users", erin, { code: "bob", permission: "W" });
      assert.equal(scope.body.ecode, "NOT_SUPPORTED");
      // A department or post the directory lacks, on either side, is refused and writes nothing.
      const grantsOn = async (on: string) =>
        (await ok<Grant>("GET", on, erin, { includePositions: "true" })).entities.map((grant) =>
          grant.user ? grant.user.account : `${grant.position!.dept.code}:${grant.position!.post.code}`,
        );
      const before = await grantsOn(path);
      const unknownDept = await call("PUT", "/access/position/nodept:staff/users", erin, {
        code: "bob",
        permission: "R",
      });
      assert.deepEqual([unknownDept.status, unknownDept.body.ecode], [200, "NOT_FOUND"]);
      assert.match(unknownDept.body.error, /nodept/);
      assert.deepEqual(await grantsOn("/access/position/nodept:staff/users"), []);
      const unknownPost = await call("PUT", path, erin, { position: "cs:nopost", permission: "R" });
      assert.deepEqual([unknownPost.body.ecode, /nopost/.test(unknownPost.body.error)], ["NOT_FOUND", true]);
      assert.deepEqual(await grantsOn(path), before);
      await ok("PUT", path, erin, { position: "cs:*", permission: "R" });
      assert.deepEqual(await grantsOn(path), [...before, "cs:*"], "* stands for any post");
      await ok("DELETE", path, erin, { position: "cs:*" });
      assert.equal(
        (await call("PUT", path, sys, { code: "bob", permission: "W" })).status,
        403,
        "user tokens",
      );
    });

    it("keeps tenants apart: grants, starters, users and administrators of one are nothing to another", async () => {
      const path = "/access/position/cs:staff/users";
      // olga administers other.edu, not example.edu: her grant lands in her own tenant.
      assert.equal(
        (await call("PUT", path, tokens.olga!, { code: "bob", permission: "W" })).body.ecode,
        "USER_NOT_FOUND",
      );
      await ok("PUT", path, tokens.olga!, { code: "oscar", permission: "W" });
      assert.deepEqual((await ok<Grant>("GET", path, tokens.erin!)).entities, []);
      assert.equal((await call("GET", path, tokens.oscar!)).body.errno, 0, "oscar manages other.edu's");
      assert.equal(
        (await call("PUT", path, tokens.bob!, { code: "bob", permission: "W" })).body.ecode,
        "NOT_AN_ADMINISTRATOR",
        "other.edu's grant is no grant in example.edu",
      );
      assert.equal((await call("GET", "/user/alice/accesses", otherSys)).body.ecode, "USER_NOT_FOUND");
      // other.edu's leave is olga's only; oscar (cs:staff there) is no starter of it.
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps", tokens.oscar!)), []);
      assert.equal(
        (await call("PUT", "/process", tokens.oscar!, { code: "leave" })).body.ecode,
        "NOT_A_STARTER",
      );
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps", tokens.olga!)), ["leave"]);
      await ok("DELETE", path, tokens.olga!, { code: "oscar" });
    });

    it("the admin API names an app's starters and a tenant's administrators; the lists replace the earlier ones", async () => {
      const admin = (method: string, path: string, body?: unknown) =>
        fetch(`${platform.url}/admin${path}`, {
          method,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const deployed = await api.deploy("example.edu", "survey", {
        definition,
        online: true,
        beta: true,
        app: { starters: { accounts: ["carol"] } },
      });
      assert.equal(deployed.status, 200, await deployed.clone().text());
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps", tokens.alice!)), ["leave"]);
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps", tokens.carol!)), ["survey"]);
      const unknown = await api.deploy("example.edu", "survey", {
        definition,
        online: true,
        app: { starters: { accounts: ["nobody"] } },
      });
      assert.equal(unknown.status, 400);
      await api.deploy("example.edu", "survey", {
        definition,
        online: true,
        app: { starters: { accounts: [], positions: [] } },
      });
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps", tokens.alice!)), ["leave", "survey"]);

      const path = "/access/position/math:head/users";
      assert.equal((await call("GET", path, tokens.frank!)).body.ecode, "NOT_AN_ADMINISTRATOR");
      const set = await admin("PUT", "/tenants/example.edu/administrators", { positions: ["math:*"] });
      assert.equal(set.status, 200);
      assert.deepEqual(await set.json(), { tenant: "example.edu", accounts: [], positions: ["math:*"] });
      assert.equal((await call("GET", path, tokens.frank!)).body.errno, 0, "frank is one through math:head");
      assert.equal(
        (await call("GET", path, tokens.erin!)).body.ecode,
        "NOT_AN_ADMINISTRATOR",
        "erin no more",
      );
      const read = await admin("GET", "/tenants/example.edu/administrators");
      assert.deepEqual(await read.json(), { tenant: "example.edu", accounts: [], positions: ["math:*"] });
      assert.equal((await admin("PUT", "/tenants/nowhere.edu/administrators", {})).status, 404);
      assert.equal(
        (await admin("PUT", "/tenants/example.edu/administrators", { accounts: ["nobody"] })).status,
        400,
      );
      assert.equal(
        (await admin("PUT", "/tenants/example.edu/administrators", { positions: ["no-colon"] })).status,
        400,
      );
      await admin("PUT", "/tenants/example.edu/administrators", { accounts: ["erin"] });
    });
  });
}
