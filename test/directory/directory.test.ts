import assert from "node:assert/strict";
import { AuthorizationPages } from "../support/authorization-pages.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { issueToken } from "../support/tokens.ts";

const A_SECRET = "directory-a-secret-0123456789abcdefghijkl";
const B_SECRET = "directory-b-secret-0123456789abcdefghijkl";
const GLOBAL_SECRET = "directory-global-secret-0123456789abcdefg";
const ALICE_PASSWORD = "alice's directory password";
const PORTAL_REDIRECT = "https://portal.a.edu/";

const bootstrap = {
  tenants: [
    { domain: "a.edu", name: "University A" },
    { domain: "b.edu", name: "University B" },
  ],
  applications: [
    {
      id: "hr-a",
      secret: A_SECRET,
      name: "Directory of A",
      type: "enterprise",
      tenant: "a.edu",
      scopes: ["sys_triple", "sys_triple_edit", "sys_profile", "sys_profile_edit"],
    },
    {
      id: "hr-b",
      secret: B_SECRET,
      name: "Directory of B",
      type: "enterprise",
      tenant: "b.edu",
      scopes: ["sys_triple"],
    },
    {
      id: "hr-global",
      secret: GLOBAL_SECRET,
      name: "Global directory",
      scopes: ["sys_triple", "sys_triple_edit"],
    },
    {
      id: "portal-a",
      name: "Portal of A",
      type: "enterprise",
      tenant: "a.edu",
      redirectUris: [PORTAL_REDIRECT],
      scopes: ["profile", "profile_edit", "triple"],
      implicitAllowed: true,
    },
  ],
  users: [
    { tenant: "a.edu", account: "alice", name: "Alice Liddell", password: ALICE_PASSWORD },
    { tenant: "b.edu", account: "bob", name: "Bob of B" },
  ],
};

interface Envelope<T = Record<string, unknown>> {
  errno: number;
  ecode: string;
  error: string;
  total: number;
  entities: T[];
}

async function userToken(url: string): Promise<string> {
  const pages = await AuthorizationPages.open(url, {
    response_type: "token",
    client_id: "portal-a",
    redirect_uri: PORTAL_REDIRECT,
    scope: "profile profile_edit triple",
    state: "s",
  });
  await pages.signIn("alice", ALICE_PASSWORD);
  const location = await pages.decide("allow");
  return new URLSearchParams(location.hash.slice(1)).get("access_token")!;
}

for (const mode of await testModes()) {
  describe(`directory API (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let tokenA: string;
    let tokenB: string;
    let tokenGlobal: string;
    let readOnlyA: string;

    /** Calls spec 001's API; parameters go in the query string, as its clients send them. */
    async function call<T = Record<string, unknown>>(
      method: string,
      path: string,
      token: string,
      params: Record<string, string> = {},
      headers: Record<string, string> = {},
    ): Promise<{ status: number; body: Envelope<T> }> {
      const query = new URLSearchParams(params).toString();
      const response = await fetch(`${platform.url}/apis/v2${path}${query ? `?${query}` : ""}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...headers },
      });
      return { status: response.status, body: (await response.json()) as Envelope<T> };
    }

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform(await withBootstrap(prepared.env, bootstrap));
      const grant = (scope: string) => ({ grant_type: "client_credentials", scope });
      tokenA = await issueToken(
        platform.url,
        { id: "hr-a", secret: A_SECRET },
        grant("sys_triple sys_triple_edit sys_profile sys_profile_edit"),
      );
      readOnlyA = await issueToken(platform.url, { id: "hr-a", secret: A_SECRET }, grant("sys_triple"));
      tokenB = await issueToken(platform.url, { id: "hr-b", secret: B_SECRET }, grant("sys_triple"));
      tokenGlobal = await issueToken(
        platform.url,
        { id: "hr-global", secret: GLOBAL_SECRET },
        grant("sys_triple sys_triple_edit"),
      );
    });
    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("creates departments, posts and users (5.2) and refuses a duplicate in the caller's language", async () => {
      for (const [type, params] of [
        ["dept", { code: "CS", name: "Computer Science", tags: "faculty", meta: '{"building":"B1"}' }],
        ["dept", { code: "CS-AI", name: "AI Lab", parent: "CS" }],
        ["dept", { code: "MATH", name: "Mathematics" }],
        ["post", { code: "PROF", name: "Professor", formal: "true" }],
        ["post", { code: "HEAD", name: "Head of department" }],
        ["user", { code: "zhangwei", name: "张伟", email: "zhangwei@a.edu", phone: "13800000001" }],
        ["user", { code: "zhangmin", name: "张敏", email: "zhangmin@a.edu" }],
        ["user", { code: "liqiang", name: "李强", title: "Dr." }],
        ["user", { code: "carol", name: "Carol Smith", email: "carol.smith@a.edu" }],
      ] as const) {
        const { status, body } = await call("PUT", `/triple/${type}`, tokenA, params);
        assert.equal(status, 200);
        assert.equal(body.errno, 0, `${type} ${params.code}: ${body.error}`);
        assert.equal(body.entities[0]!.code, params.code);
      }
      const dept = await call("GET", "/triple/dept/CS-AI", tokenA);
      assert.equal(dept.body.entities[0]!.parent, "CS");
      assert.equal(dept.body.entities[0]!.independent, false);
      const cs = await call("GET", "/triple/dept/CS", tokenA);
      assert.deepEqual(cs.body.entities[0]!.meta, { building: "B1" });
      assert.equal(cs.body.entities[0]!.independent, true);

      const again = await call(
        "PUT",
        "/triple/dept",
        tokenA,
        { code: "CS", name: "Again" },
        { "accept-language": "zh-CN,zh;q=0.9,en;q=0.5" },
      );
      assert.equal(again.status, 200, "a semantic failure answers 200");
      assert.equal(again.body.ecode, "CONFLICT");
      assert.notEqual(again.body.errno, 0);
      assert.equal(again.body.error, "部门 CS 已存在");
      const english = await call(
        "PUT",
        "/triple/dept",
        tokenA,
        { code: "CS", name: "Again" },
        { "accept-language": "en-GB" },
      );
      assert.equal(english.body.error, "department CS exists already");
      const missing = await call("PUT", "/triple/post", tokenA, { code: "X" });
      assert.equal(missing.status, 400);
      assert.match(missing.body.error, /^name: /);
    });

    it("reads one entry by code (5.1): a global application names the tenant, a tenant application sees only its own", async () => {
      const post = await call("GET", "/triple/post/PROF", tokenA, { verbose: "true" });
      assert.equal(post.body.entities[0]!.formal, true);
      assert.deepEqual(post.body.entities[0]!.apps, []);
      assert.deepEqual(post.body.entities[0]!.nodes, []);

      const byAt = await call("GET", "/triple/user/zhangwei@a.edu", tokenGlobal);
      assert.equal(byAt.body.entities[0]!.name, "张伟");
      const byDomain = await call("GET", "/triple/user/liqiang", tokenGlobal, { domain: "a.edu" });
      assert.equal(byDomain.body.entities[0]!.title, "Dr.");
      const unnamed = await call("GET", "/triple/user/liqiang", tokenGlobal);
      assert.equal(unnamed.status, 400);
      assert.match(unnamed.body.error, /code@domain/);

      const otherTenant = await call("GET", "/triple/user/zhangwei", tokenB);
      assert.equal(otherTenant.body.ecode, "NOT_FOUND", "tenant B's token does not find tenant A's user");
      const forced = await call("GET", "/triple/user/zhangwei", tokenB, { domain: "a.edu" });
      assert.equal(forced.status, 403);
      assert.equal(forced.body.entities.length, 0);
      const bob = await call("GET", "/triple/user/bob", tokenB);
      assert.equal(bob.body.entities[0]!.name, "Bob of B");
    });

    it("checks scopes and token kinds", async () => {
      const readOnly = await call("PUT", "/triple/post", readOnlyA, { code: "X", name: "X" });
      assert.equal(readOnly.status, 403);
      assert.equal(readOnly.body.error, "the token lacks the scope sys_triple_edit");
      const zh = await call(
        "PUT",
        "/triple/post",
        readOnlyA,
        { code: "X", name: "X" },
        { "accept-language": "zh" },
      );
      assert.equal(zh.body.error, "令牌缺少权限范围 sys_triple_edit");
      const user = await userToken(platform.url);
      const userOnSys = await call("GET", "/triple/users", user);
      assert.equal(userOnSys.status, 403);
      assert.equal(userOnSys.body.error, "this operation needs a sys token");
      const none = await fetch(`${platform.url}/apis/v2/triple/users`);
      assert.equal(none.status, 401);
    });

    it("grants positions (6.3) and finds their users with wildcards (6.2), and a user's positions (6.1, 1.6)", async () => {
      for (const [position, code, number] of [
        ["CS:PROF", "zhangwei", "T001"],
        ["CS:HEAD", "zhangwei", undefined],
        ["CS-AI:PROF", "zhangmin", "T002"],
        ["MATH:PROF", "liqiang", "T003"],
        ["MATH:HEAD", "carol", undefined],
        ["CS:PROF", "alice", undefined],
      ] as const) {
        const granted = await call("PUT", `/position/${position}/users`, tokenA, {
          code,
          ...(number ? { number } : {}),
        });
        assert.equal(granted.body.errno, 0, granted.body.error);
      }
      const wildcard = await call<{ account: string }>("PUT", "/position/CS:*/users", tokenA, {
        code: "carol",
      });
      assert.equal(wildcard.status, 400);
      const unknownPost = await call("PUT", "/position/CS:DEAN/users", tokenA, { code: "carol" });
      assert.equal(unknownPost.body.ecode, "NOT_FOUND");

      const accounts = async (position: string, params: Record<string, string> = {}) => {
        const { body } = await call<{ account: string }>(
          "GET",
          `/position/${position}/users`,
          tokenA,
          params,
        );
        assert.equal(body.errno, 0, body.error);
        return { total: body.total, accounts: body.entities.map((user) => user.account) };
      };
      assert.deepEqual((await accounts("CS:*")).accounts, ["alice", "zhangwei"]);
      assert.deepEqual((await accounts("*:PROF")).accounts, ["alice", "liqiang", "zhangmin", "zhangwei"]);
      assert.deepEqual((await accounts("*:HEAD,CS-AI:PROF")).accounts, ["carol", "zhangmin", "zhangwei"]);
      assert.deepEqual((await accounts("*:*")).accounts, [
        "alice",
        "carol",
        "liqiang",
        "zhangmin",
        "zhangwei",
      ]);
      assert.deepEqual(await accounts("*:PROF", { start: "1", limit: "2" }), {
        total: 4,
        accounts: ["liqiang", "zhangmin"],
      });

      const positions = await call<{
        dept: { code: string };
        post: { code: string; formal: boolean };
        number: string;
      }>("GET", "/user/zhangwei/positions", tokenA);
      assert.deepEqual(
        positions.body.entities.map((p) => `${p.dept.code}:${p.post.code}:${p.number}`),
        ["CS:PROF:T001", "CS:HEAD:null"],
        "the formal post first",
      );
      const mine = await call<{ dept: { code: string } }>(
        "GET",
        "/me/positions",
        await userToken(platform.url),
      );
      assert.deepEqual(
        mine.body.entities.map((p) => p.dept.code),
        ["CS"],
      );
    });

    it("lists users by keyword, accounts and positions with paging (5.5), and departments and posts whole", async () => {
      const users = async (params: Record<string, string>) => {
        const { body } = await call<{ account: string }>("GET", "/triple/users", tokenA, params);
        assert.equal(body.errno, 0, body.error);
        return { total: body.total, accounts: body.entities.map((user) => user.account) };
      };
      assert.deepEqual(
        (await users({ keyword: "张" })).accounts,
        ["zhangmin", "zhangwei"],
        "a surname finds by name prefix",
      );
      assert.deepEqual(
        (await users({ keyword: "smith" })).accounts,
        ["carol"],
        "three letters match inside the name",
      );
      assert.deepEqual(
        (await users({ keyword: "zhangw, li" })).accounts,
        ["liqiang", "zhangwei"],
        "any keyword matches",
      );
      assert.deepEqual((await users({ keyword: "13800000001" })).accounts, ["zhangwei"], "by phone");
      assert.deepEqual((await users({ keyword: "%" })).accounts, [], "LIKE wildcards are plain text");
      assert.deepEqual((await users({ accounts: "carol,liqiang,nobody" })).accounts, ["carol", "liqiang"]);
      assert.deepEqual((await users({ keyword: "张", positions: "CS:*" })).accounts, ["zhangwei"]);
      const page = await users({ start: "2", limit: "2" });
      assert.equal(page.total, 5);
      assert.deepEqual(page.accounts, ["liqiang", "zhangmin"]);
      assert.deepEqual(await users({ start: "9" }), { total: 5, accounts: [] });
      const badLimit = await call("GET", "/triple/users", tokenA, { limit: "100000" });
      assert.equal(badLimit.status, 400);
      const badPosition = await call(
        "GET",
        "/triple/users",
        tokenA,
        { positions: "CS" },
        { "accept-language": "zh" },
      );
      assert.match(badPosition.body.error, /不是有效的职位/);

      const depts = await call<{ code: string }>("GET", "/triple/depts", tokenA);
      assert.deepEqual(
        depts.body.entities.map((d) => d.code),
        ["CS", "CS-AI", "MATH"],
      );
      assert.equal(depts.body.total, 0, "the whole set, not paged: total is 0");
      const posts = await call<{ code: string }>("GET", "/triple/posts", tokenGlobal, { domain: "a.edu" });
      assert.deepEqual(
        posts.body.entities.map((p) => p.code),
        ["HEAD", "PROF"],
      );
      const ofB = await call("GET", "/triple/users", tokenB);
      assert.deepEqual(
        ofB.body.entities.map((u) => u.account),
        ["bob"],
        "tenant B sees only its users",
      );
    });

    it("changes departments and posts (5.3) within the modifiable fields", async () => {
      const changed = await call("POST", "/triple/dept/CS", tokenA, {
        tags: "faculty,science",
        meta: '{"floor":"3"}',
      });
      assert.equal(changed.body.entities[0]!.tags, "faculty,science");
      assert.deepEqual(changed.body.entities[0]!.meta, { floor: "3" });
      const renamed = await call("POST", "/triple/dept/CS", tokenA, { name: "Renamed" });
      assert.equal(renamed.status, 400);
      assert.match(renamed.body.error, /name cannot be changed/);
      const badMeta = await call("POST", "/triple/post/PROF", tokenA, { meta: "[1,2]" });
      assert.equal(badMeta.status, 400);
    });

    it("takes positions away (6.4) and removes entries (5.4), their positions with them", async () => {
      const revoked = await call("DELETE", "/position/CS:*/users", tokenA, { code: "zhangwei" });
      assert.equal(revoked.body.entities.length, 2);
      const cs = await call<{ account: string }>("GET", "/position/CS:*/users", tokenA);
      assert.deepEqual(
        cs.body.entities.map((u) => u.account),
        ["alice"],
      );

      const removed = await call("DELETE", "/triple/dept/MATH", tokenA);
      assert.equal(removed.body.errno, 0);
      const math = await call("GET", "/position/MATH:*/users", tokenA);
      assert.equal(math.body.total, 0);
      const gone = await call("GET", "/triple/dept/MATH", tokenA);
      assert.equal(gone.body.ecode, "NOT_FOUND");
      const back = await call("PUT", "/triple/dept", tokenA, { code: "MATH", name: "Mathematics again" });
      assert.equal(back.body.errno, 0, "a removed code can be created again");
      assert.equal(
        (await call("GET", "/position/MATH:*/users", tokenA)).body.total,
        2,
        "its occupancies count again",
      );

      const userGone = await call("DELETE", `/triple/user/carol`, tokenA);
      assert.equal(userGone.body.errno, 0);
      const list = await call<{ account: string }>("GET", "/triple/users", tokenA, { keyword: "carol" });
      assert.equal(list.body.total, 0);
    });

    it("keeps preference sets (1.3-1.5) for the user and through the sys form", async () => {
      const user = await userToken(platform.url);
      const add = await call("PUT", "/me/preference/FavoriteTasks/1024", user);
      assert.deepEqual(add.body.entities[0]!.FavoriteTasks, [1024]);
      assert.deepEqual(add.body.entities[0]!.FavoriteApps, []);
      assert.deepEqual(add.body.entities[0]!.TenantApps, []);
      await call("PUT", "/me/preference/FavoriteTasks/1024", user);
      await call("PUT", "/me/preference/FavoriteTasks/7", user);
      const notNumber = await call("PUT", "/me/preference/FavoriteTasks/abc", user);
      assert.equal(notNumber.status, 400);
      const free = await call("PUT", "/me/preference/Colours/blue", user);
      assert.deepEqual(free.body.entities[0]!.Colours, ["blue"]);
      const reserved = await call("PUT", "/me/preference/account/x", user);
      assert.equal(reserved.status, 400);
      const removed = await call("DELETE", "/me/preference/FavoriteTasks/1024", user);
      assert.deepEqual(removed.body.entities[0]!.FavoriteTasks, [7]);
      // Keys are the user's own text, names of inherited members included.
      const inherited = await call("DELETE", "/me/preference/valueOf/1", user);
      assert.equal(inherited.status, 200);
      assert.deepEqual(inherited.body.entities[0]!.valueOf, []);
      assert.equal((await call("PUT", "/me/preference/constructor/x", user)).status, 200);
      const own = await call("GET", "/me/preference/constructor", user);
      assert.deepEqual(own.body.entities[0]!.constructor, ["x"]);

      const me = await call<{ id: string }>("GET", "/me/profile", user);
      const aliceId = me.body.entities[0]!.id;
      const sysRead = await call("GET", `/user/${aliceId}/preference/Colours`, tokenA);
      assert.deepEqual(sysRead.body.entities[0]!.Colours, ["blue"]);
      assert.deepEqual(sysRead.body.entities[0]!.FavoriteTasks, [7]);
      const sysAdd = await call("PUT", `/user/${aliceId}/preference/FavoriteTags/urgent`, tokenA);
      assert.deepEqual(sysAdd.body.entities[0]!.FavoriteTags, ["urgent"]);
      const fromB = await call(
        "GET",
        `/user/${aliceId}/preference/Colours`,
        await issueToken(
          platform.url,
          { id: "hr-b", secret: B_SECRET },
          { grant_type: "client_credentials", scope: "sys_triple" },
        ),
      );
      assert.equal(fromB.status, 403, "the sys form needs sys_profile");
    });
  });
}
