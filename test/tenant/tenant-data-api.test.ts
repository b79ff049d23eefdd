import assert from "node:assert/strict";
import type { CodeItemRow as CodeItem } from "../../tenant/code-tables.ts";
import type { TagRow as Tag } from "../../tenant/tags.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { type Envelope, WorkflowClient } from "../support/workflow-client.ts";
import {
  otherTenantApplication,
  portalApplication,
  portalUserTokens,
  sysToken,
  WORKFLOW_PASSWORD,
  WORKFLOW_TENANTS,
} from "../support/workflow-fixture.ts";

/**
 * The tenant's own data over HTTP, on both data modes: the tags, memberships and settings
 * operators make (bootstrap file and admin API) as 9.1 and 9.5 read them, 9.6's code tables with
 * their uniqueness refusals, the directory's old `/enterprise/{type}` paths, and each tenant kept
 * to its own.
 */

const SECRET = "tenant-data-secret-0123456789abcdefghijk";
const ADMIN_TOKEN = "tenant-data-admin-token-0123456789abcdef";
const SCOPES = [
  "sys_enterprise",
  "sys_code",
  "sys_triple",
  "sys_triple_edit",
  "sys_start",
  "sys_process",
  "sys_process_edit",
];

/** A one-step memo, online for both data modes. */
const memo = {
  schema: { fields: [{ name: "note", type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "review", assignees: [{ accounts: ["alice"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "review" },
      { from: "review", to: "done" },
    ],
  },
};
const BASES = ["/apis/v2", "/apis/v2d"] as const;

for (const mode of await testModes()) {
  describe(`the tenant's tags, memberships, settings and code tables (${mode.name})`, {
    skip: mode.skip,
  }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let sys: string;
    let otherSys: string;
    const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);

    const admin = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${platform.url}/admin${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const refused = async (
      method: string,
      path: string,
      token: string,
      params: Record<string, string>,
      base: string,
      ecode: string,
      errno: number,
    ) => {
      const { status, body } = await api.call(method, path, token, params, base);
      assert.equal(status, 200, `${method} ${base}${path}: ${JSON.stringify(body)}`);
      assert.deepEqual([body.ecode, body.errno], [ecode, errno], `${method} ${base}${path}: ${body.error}`);
      return body;
    };

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, {
        tenants: [
          {
            ...WORKFLOW_TENANTS[0],
            workflow: { reminder: { channel: "email", text: "Please handle {step} of {process}" } },
          },
          WORKFLOW_TENANTS[1],
        ],
        applications: [
          portalApplication(SECRET, [...SCOPES, "code"]),
          otherTenantApplication(SECRET, SCOPES),
        ],
        users: [
          { tenant: "example.edu", account: "alice", name: "Alice", password: WORKFLOW_PASSWORD },
          { tenant: "example.edu", account: "erin", name: "Erin", password: WORKFLOW_PASSWORD },
        ],
        tenantAdministrators: [{ tenant: "example.edu", accounts: ["erin"] }],
        tags: [
          { tenant: "example.edu", name: "staff", index: 2, palette: "#336699" },
          { tenant: "example.edu", name: "finance", index: 1, description: "money matters" },
          { tenant: "other.edu", name: "other-only" },
        ],
        memberships: [
          { tenant: "example.edu", provider: "CampusSSO", code: "corp-1", attributes: { region: "north" } },
        ],
        workflows: [
          {
            tenant: "example.edu",
            code: "memo",
            name: "Memo",
            tags: "staff",
            versions: [{ definition: memo, online: true, beta: true }],
          },
        ],
      });
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN });
      sys = await sysToken(platform.url, "portal", SECRET, SCOPES.join(" "));
      otherSys = await sysToken(platform.url, "other", SECRET, SCOPES.join(" "));
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("lets operators make tags, memberships and settings through the admin API", async () => {
      const tag = await admin("PUT", "/tenants/example.edu/tags/urgent", { index: 0, visible: false });
      assert.equal(tag.status, 200, JSON.stringify(tag.body));
      assert.deepEqual([tag.body.name, tag.body.index, tag.body.visible], ["urgent", 0, false]);
      const membership = await admin("PUT", "/tenants/example.edu/memberships/MsgApp", {
        code: "ww-42",
        name: "Messaging",
        uri: "https://msg.example.com",
      });
      assert.equal(membership.status, 200, JSON.stringify(membership.body));
      const setting = await admin("PUT", "/tenants/example.edu/settings/workflow.notify", {
        value: { on: true, channel: "email", application: "portal", todo: { text: "New: {step}" } },
      });
      assert.equal(setting.status, 200, JSON.stringify(setting.body));
      const wrong = await admin("PUT", "/tenants/example.edu/settings/workflow.notify", {
        value: { on: "yes" },
      });
      assert.equal(wrong.status, 400, "a value breaking the setting's schema is refused");
      const noTenant = await admin("PUT", "/tenants/nowhere.edu/tags/x", {});
      assert.equal(noTenant.status, 404);
      const data = await admin("GET", "/tenants/example.edu/data");
      assert.deepEqual(
        (data.body.tags as Tag[]).map((t) => t.name),
        ["urgent", "finance", "staff"],
      );
    });

    for (const base of BASES) {
      it(`reads them with 9.5 and 9.1 on ${base}`, async () => {
        const tags = await api.ok<Tag>("GET", "/enterprise/tags", sys, {}, base);
        assert.deepEqual(
          tags.entities.map((t) => [t.name, t.index]),
          [
            ["urgent", 0],
            ["finance", 1],
            ["staff", 2],
          ],
          "in their index order, the other tenant's left out",
        );
        assert.equal(tags.total, 3);
        const staff = tags.entities.find((t) => t.name === "staff")!;
        assert.equal(staff.palette, "#336699");
        const byId = await api.ok<Tag>("GET", `/enterprise/tag/${staff.id}`, sys, {}, base);
        assert.equal(byId.entities[0]!.name, "staff");
        const byName = await api.ok<Tag>("GET", "/enterprise/tag/finance", sys, {}, base);
        assert.equal(byName.entities[0]!.description, "money matters");
        await refused("GET", "/enterprise/tag/other-only", sys, {}, base, "TAG_NOT_FOUND", 40420);

        const memberships = await api.ok<{ provider: string; code: string; attributes: object }>(
          "GET",
          "/enterprise/memberships",
          sys,
          {},
          base,
        );
        assert.deepEqual(
          memberships.entities.map((m) => [m.provider, m.code]),
          [
            ["CampusSSO", "corp-1"],
            ["MsgApp", "ww-42"],
          ],
        );
        const sso = await api.ok<{ id: string; attributes: object }>(
          "GET",
          "/enterprise/membership/campussso",
          sys,
          {},
          base,
        );
        assert.deepEqual(sso.entities[0]!.attributes, { region: "north" }, "found whatever the case");
        const again = await api.ok("GET", `/enterprise/membership/${sso.entities[0]!.id}`, sys, {}, base);
        assert.equal(again.entities[0]!.provider, "CampusSSO");
        await refused("GET", "/enterprise/membership/none", sys, {}, base, "MEMBERSHIP_NOT_FOUND", 40422);

        const settings = await api.ok<{ name: string; value: Record<string, unknown> }>(
          "GET",
          "/enterprise/settings",
          sys,
          {},
          base,
        );
        assert.deepEqual(
          settings.entities.map((s) => s.name),
          ["workflow.reminder", "workflow.notify"],
        );
        assert.equal(settings.total, 0, "an unpaged answer");
        const reminder = await api.ok<{ value: { text: string } }>(
          "GET",
          "/enterprise/setting/workflow.reminder",
          sys,
          {},
          base,
        );
        assert.equal(reminder.entities[0]!.value.text, "Please handle {step} of {process}");
        await refused("GET", "/enterprise/setting/feed", sys, {}, base, "SETTING_NOT_FOUND", 40423);
      });

      it(`keeps 9.1 and 9.5 to the caller's tenant on ${base}`, async () => {
        const tags = await api.ok<Tag>("GET", "/enterprise/tags", otherSys, {}, base);
        assert.deepEqual(
          tags.entities.map((t) => t.name),
          ["other-only"],
        );
        const memberships = await api.ok("GET", "/enterprise/memberships", otherSys, {}, base);
        assert.deepEqual(memberships.entities, []);
        assert.deepEqual((await api.ok("GET", "/enterprise/settings", otherSys, {}, base)).entities, []);
        await refused("GET", "/enterprise/tag/staff", otherSys, {}, base, "TAG_NOT_FOUND", 40420);
        const named = await api.call("GET", "/enterprise/tags", otherSys, { domain: "example.edu" }, base);
        assert.equal(named.status, 403, "a tenant's application names no other tenant");
      });

      it(`serves 9.6's code tables on ${base}, with the uniqueness refusals`, async () => {
        const created = await api.ok<CodeItem>(
          "PUT",
          "/code/faculty/item",
          sys,
          {
            code: "ENG",
            name: "Engineering",
            parent: "UNI",
            index: "2",
            attributes: JSON.stringify({ building: "B7" }),
            description: "the faculty of engineering",
          },
          base,
        );
        const item = created.entities[0]!;
        assert.deepEqual(
          { ...item, id: "" },
          {
            id: "",
            name: "Engineering",
            code: "ENG",
            parentCode: "UNI",
            description: "the faculty of engineering",
            index: 2,
            attributes: { building: "B7" },
          },
        );
        await api.ok("PUT", "/code/faculty/item", sys, { code: "LAW", name: "Law", index: "1" }, base);
        await refused(
          "PUT",
          "/code/faculty/item",
          sys,
          { code: "ENG", name: "Engineering again" },
          base,
          "CODE_TAKEN",
          40920,
        );
        await refused(
          "PUT",
          "/code/room/item",
          sys,
          { code: "R1", name: "Engineering" },
          base,
          "NAME_TAKEN",
          40921,
        );
        // The same code in another table is another item.
        await api.ok("PUT", "/code/room/item", sys, { code: "ENG", name: "Engineering hall" }, base);

        const one = await api.ok<CodeItem>("GET", "/code/faculty/item/ENG", sys, {}, base);
        assert.equal(one.entities[0]!.id, item.id);
        const all = await api.ok<CodeItem>("GET", "/code/faculty/item/*", sys, {}, base);
        assert.deepEqual(
          all.entities.map((i) => i.code),
          ["LAW", "ENG"],
          "in their index order",
        );
        assert.equal(all.total, 2);
        const page = await api.ok<CodeItem>(
          "GET",
          "/code/faculty/item/*",
          sys,
          { start: "1", limit: "1" },
          base,
        );
        assert.deepEqual([page.entities.map((i) => i.code), page.total], [["ENG"], 2]);

        const changed = await api.ok<CodeItem>(
          "POST",
          "/code/faculty/item/ENG",
          sys,
          { name: "Engineering and Design", parent: "", index: "5", attributes: "{}" },
          base,
        );
        assert.deepEqual(
          [changed.entities[0]!.name, changed.entities[0]!.parentCode, changed.entities[0]!.index],
          ["Engineering and Design", null, 5],
        );
        assert.deepEqual(changed.entities[0]!.attributes, {});
        assert.equal(
          changed.entities[0]!.description,
          "the faculty of engineering",
          "what is not given stays",
        );
        await refused("POST", "/code/faculty/item/ENG", sys, { name: "Law" }, base, "NAME_TAKEN", 40921);
        await refused("POST", "/code/faculty/item/NONE", sys, { name: "x" }, base, "CODE_NOT_FOUND", 40421);
        const wrongIndex = await api.call("POST", "/code/faculty/item/ENG", sys, { index: "two" }, base);
        assert.equal(wrongIndex.status, 400, "index is an integer");
        const wrongMap = await api.call("POST", "/code/faculty/item/ENG", sys, { attributes: "[1]" }, base);
        assert.equal(wrongMap.status, 400, "attributes is a map of strings");

        const removed = await api.ok<CodeItem>("DELETE", "/code/faculty/item/ENG", sys, {}, base);
        assert.equal(removed.entities[0]!.name, "Engineering and Design");
        await refused("GET", "/code/faculty/item/ENG", sys, {}, base, "CODE_NOT_FOUND", 40421);
        await refused("DELETE", "/code/faculty/item/ENG", sys, {}, base, "CODE_NOT_FOUND", 40421);
        // Its name is free again.
        await api.ok("PUT", "/code/faculty/item", sys, { code: "ENG2", name: "Engineering" }, base);
      });
    }

    for (const base of BASES) {
      it(`tags a process with a tenant tag through 4.5 on ${base}, and keyword finds it by the tag`, async () => {
        const started = await api.ok("PUT", "/process", sys, { code: "memo", userId: "alice" }, base);
        const entry = String(started.entities[0]);
        const tagged = await api.ok<{ tags: string }>(
          "POST",
          `/process/${entry}`,
          sys,
          { action: "tag", tag: "finance" },
          base,
        );
        assert.equal(tagged.entities[0]!.tags, "staff,finance", "the app's tags, then the one added");
        const again = await api.ok<{ tags: string }>(
          "POST",
          `/process/${entry}`,
          sys,
          { action: "tag", tag: "finance" },
          base,
        );
        assert.equal(again.entities[0]!.tags, "staff,finance", "a tag it has changes nothing");
        for (const tag of ["nonsense", "other-only"])
          await refused(
            "POST",
            `/process/${entry}`,
            sys,
            { action: "tag", tag },
            base,
            "TAG_NOT_FOUND",
            40420,
          );
        const found = await api.ok<{ entry: number }>(
          "GET",
          "/user/alice/processes/doing",
          sys,
          { keyword: "finance" },
          base,
        );
        assert.deepEqual(
          found.entities.map((p) => String(p.entry)),
          [entry],
        );
        const none = await api.ok("GET", "/user/alice/processes/doing", sys, { keyword: "urgent" }, base);
        assert.deepEqual(none.entities, []);
      });
    }

    it("holds an app's tags to the tenant's tags, when the tenant keeps any", async () => {
      const deploy = async (domain: string, tags: string) => {
        const response = await api.deploy(domain, "tagged", {
          definition: memo,
          online: true,
          app: { name: "Tagged", tags },
        });
        return { status: response.status, body: (await response.json()) as { error?: string } };
      };
      const refusedTags = await deploy("example.edu", "finance,nonsense");
      assert.equal(refusedTags.status, 404);
      assert.match(refusedTags.body.error ?? "", /no tag nonsense/);
      assert.equal((await deploy("example.edu", "finance, staff")).status, 200);
    });

    it("keeps code tables to their data mode and tenant", async () => {
      await api.ok("PUT", "/code/mode/item", sys, { code: "LIVE", name: "live only" }, "/apis/v2");
      await refused("GET", "/code/mode/item/LIVE", sys, {}, "/apis/v2d", "CODE_NOT_FOUND", 40421);
      await api.ok("PUT", "/code/mode/item", sys, { code: "LIVE", name: "live only" }, "/apis/v2d");
      for (const base of BASES) {
        await refused("GET", "/code/faculty/item/LAW", otherSys, {}, base, "CODE_NOT_FOUND", 40421);
        const none = await api.ok("GET", "/code/faculty/item/*", otherSys, {}, base);
        assert.deepEqual([none.entities, none.total], [[], 0]);
        await refused("DELETE", "/code/faculty/item/LAW", otherSys, {}, base, "CODE_NOT_FOUND", 40421);
        // The other tenant may use the same codes and names for its own items.
        await api.ok("PUT", "/code/faculty/item", otherSys, { code: "LAW", name: "Law" }, base);
      }
      const law = await api.ok<CodeItem>("GET", "/code/faculty/item/LAW", sys, {}, "/apis/v2");
      assert.equal(law.entities[0]!.index, 1, "example.edu's item is untouched");
    });

    it("lets a tenant administrator's user token change code tables, and a plain user's only read them", async () => {
      const users = await portalUserTokens(platform.url, SECRET, ["erin", "alice"], "code");
      for (const base of BASES) {
        const made = await api.call(
          "PUT",
          "/code/rooms/item",
          users.erin!,
          { code: "r1", name: "Room one" },
          base,
        );
        assert.equal(made.body.errno, 0, JSON.stringify(made.body));
        const changed = await api.call<CodeItem>(
          "POST",
          "/code/rooms/item/r1",
          users.erin!,
          { index: "3" },
          base,
        );
        assert.equal(changed.body.entities![0]!.index, 3, JSON.stringify(changed.body));

        await refused(
          "PUT",
          "/code/rooms/item",
          users.alice!,
          { code: "r2", name: "Room two" },
          base,
          "NOT_AN_ADMINISTRATOR",
          40309,
        );
        await refused(
          "POST",
          "/code/rooms/item/r1",
          users.alice!,
          { name: "Taken over" },
          base,
          "NOT_AN_ADMINISTRATOR",
          40309,
        );
        await refused("DELETE", "/code/rooms/item/r1", users.alice!, {}, base, "NOT_AN_ADMINISTRATOR", 40309);
        const read = await api.call<CodeItem>("GET", "/code/rooms/item/*", users.alice!, {}, base);
        assert.deepEqual(
          read.body.entities!.map((item) => [item.code, item.name, item.index]),
          [["r1", "Room one", 3]],
          "the plain user reads the table, unchanged by the refused writes",
        );
        const removed = await api.call("DELETE", "/code/rooms/item/r1", users.erin!, {}, base);
        assert.equal(removed.body.errno, 0, JSON.stringify(removed.body));
      }
    });

    it("answers the directory's old /enterprise/{type} paths as their /triple form", async () => {
      for (const base of BASES) {
        const dept = `D-${base.length}`;
        await api.ok("PUT", "/enterprise/dept", sys, { code: dept, name: "Old form" }, base);
        const read = await api.ok<{ code: string; name: string }>(
          "GET",
          `/triple/dept/${dept}`,
          sys,
          {},
          base,
        );
        assert.equal(read.entities[0]!.name, "Old form");
        const old = await api.ok<{ code: string }>("GET", `/enterprise/dept/${dept}`, sys, {}, base);
        assert.equal(old.entities[0]!.code, dept);
        await api.ok("POST", `/enterprise/dept/${dept}`, sys, { description: "changed" }, base);
        const depts = await api.ok<{ code: string; description: string }>(
          "GET",
          "/enterprise/depts",
          sys,
          {},
          base,
        );
        assert.equal(depts.entities.find((d) => d.code === dept)?.description, "changed");
        const users = await api.ok<{ account: string }>("GET", "/enterprise/users", sys, {}, base);
        assert.deepEqual(
          users.entities.map((u) => u.account),
          ["alice", "erin"],
        );
        const user = await api.ok<{ account: string }>("GET", "/enterprise/user/alice", sys, {}, base);
        assert.equal(user.entities[0]!.account, "alice");
        await api.ok("DELETE", `/enterprise/dept/${dept}`, sys, {}, base);
        // A body reaches the /triple form as it would have reached it.
        const posted = await fetch(`${platform.url}${base}/enterprise/post`, {
          method: "PUT",
          headers: { authorization: `Bearer ${sys}`, "content-type": "application/json" },
          body: JSON.stringify({ code: `P-${base.length}`, name: "Posted in a body" }),
        });
        const created = (await posted.json()) as Envelope<{ name: string }>;
        assert.equal(created.errno, 0, created.error);
        assert.equal(created.entities[0]!.name, "Posted in a body");
        const { body } = await api.call<Envelope>("GET", "/enterprise/occupies", sys, {}, base);
        const { body: triple } = await api.call<Envelope>("GET", "/triple/occupies", sys, {}, base);
        assert.deepEqual(
          [body.errno, body.ecode],
          [triple.errno, triple.ecode],
          "occupy answers as /triple does",
        );
        const otherOld = await api.ok<{ code: string }>("GET", "/enterprise/depts", otherSys, {}, base);
        assert.deepEqual(otherOld.entities, [], "the other tenant's directory is its own");
      }
    });

    it("gives the bootstrap export the tags and memberships, so applying it changes nothing", async () => {
      const exported = await admin("GET", "/bootstrap");
      assert.equal(exported.status, 200, JSON.stringify(exported.body).slice(0, 300));
      const document = (exported.body.document ?? exported.body) as {
        tags: { tenant: string; name: string }[];
        memberships: { tenant: string; provider: string }[];
      };
      assert.deepEqual(document.tags.map((t) => `${t.tenant}/${t.name}`).sort(), [
        "example.edu/finance",
        "example.edu/staff",
        "example.edu/urgent",
        "other.edu/other-only",
      ]);
      assert.deepEqual(document.memberships.map((m) => m.provider).sort(), ["CampusSSO", "MsgApp"]);
      const applied = await admin("PUT", "/bootstrap", document);
      assert.equal(applied.status, 200, JSON.stringify(applied.body));
      const data = await admin("GET", "/tenants/example.edu/data");
      assert.deepEqual(
        (data.body.tags as Tag[]).map((t) => [t.name, t.index, t.visible, t.palette]),
        [
          ["urgent", 0, false, null],
          ["finance", 1, true, null],
          ["staff", 2, true, "#336699"],
        ],
      );
      const removed = await admin("DELETE", "/tenants/example.edu/memberships/msgapp");
      assert.equal(removed.status, 200);
      const gone = await admin("DELETE", "/tenants/example.edu/memberships/msgapp");
      assert.equal(gone.status, 404);
    });

    it("lets operators make them in the console", async () => {
      const form = { "content-type": "application/x-www-form-urlencoded" };
      const signedIn = await fetch(`${platform.url}/console/sign-in`, {
        method: "POST",
        headers: form,
        body: new URLSearchParams({ token: ADMIN_TOKEN }),
        redirect: "manual",
      });
      await signedIn.body?.cancel();
      const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
      const page = await fetch(`${platform.url}/console/tenants/data?domain=example.edu`, {
        headers: { cookie },
      });
      const html = await page.text();
      assert.equal(page.status, 200);
      assert.match(html, /CampusSSO/);
      assert.match(html, /Please handle \{step\} of \{process\}/);
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
      const post = async (path: string, fields: Record<string, string>) => {
        const response = await fetch(`${platform.url}/console/tenants/data/${path}`, {
          method: "POST",
          headers: { ...form, cookie },
          body: new URLSearchParams({ csrf, domain: "example.edu", ...fields }),
          redirect: "manual",
        });
        await response.body?.cancel();
        return response.status;
      };
      assert.equal(await post("tag", { name: "console-made", index: "7", visible: "true" }), 303);
      assert.equal(
        await post("membership", { provider: "Pay", code: "p-9", attributes: '{"desk":"3"}' }),
        303,
      );
      const reminder = JSON.stringify({ channel: "sms", text: "Now: {step}" });
      assert.equal(await post("setting", { name: "workflow.reminder", value: reminder }), 303);
      assert.equal(await post("setting", { name: "workflow.reminder", value: "{ not json" }), 400);
      assert.equal(await post("membership", { provider: "Pay", code: "p-9", attributes: "[1]" }), 400);

      const tags = await api.ok<Tag>("GET", "/enterprise/tags", sys, {}, "/apis/v2d");
      assert.deepEqual(tags.entities.at(-1)!.name, "console-made");
      const pay = await api.ok<{ attributes: object }>("GET", "/enterprise/membership/pay", sys);
      assert.deepEqual(pay.entities[0]!.attributes, { desk: "3" });
      const setting = await api.ok<{ value: object }>("GET", "/enterprise/setting/workflow.reminder", sys);
      assert.deepEqual(setting.entities[0]!.value, { channel: "sms", text: "Now: {step}" });
      assert.equal(await post("remove-tag", { name: "console-made" }), 303);
      await refused("GET", "/enterprise/tag/console-made", sys, {}, "/apis/v2", "TAG_NOT_FOUND", 40420);
    });
  });
}
