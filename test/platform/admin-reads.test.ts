import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { type Bootstrap, bootstrapSchema } from "../../contracts/bootstrap.ts";
import { sealPng } from "../support/pdf-fixtures.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";

const ADMIN_TOKEN = "reads-admin-token-0123456789abcdefghijklmn";
const SYS_SECRET = "reads-sys-secret-0123456789abcdefghijklmno";
const KIOSK_SECRET = "reads-kiosk-secret-0123456789abcdefghijklm";
const PORTAL_SECRET = "reads-portal-secret-0123456789abcdefghijkl";
const PASSWORD = "reads password, never shown";

const PLATFORM_SEAL = sealPng(32);
const TENANT_SEAL = sealPng(48);
const dataUri = (png: Buffer) => `data:image/png;base64,${png.toString("base64")}`;

const DOMAINS = ["a.edu", "b.edu", "c.edu", "d.edu", "e.edu"];
const ACCOUNTS = ["alex", "alice", "bob", "carol", "dave"];

/** A start, a check by `reviewer`, an end. */
const leaveV1 = {
  schema: { fields: [{ name: "reviewer", type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "check", assignees: [{ field: "reviewer" }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "check" },
      { from: "check", to: "done" },
    ],
  },
};
/** A sub-process whose `data` lists its keys in another order than jsonb keeps them. */
const leaveV2 = {
  schema: {
    fields: [
      { name: "reviewer", type: "string" },
      { name: "b", type: "string" },
    ],
  },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "subprocess", code: "inner", workflow: "travel", data: { reviewer: "reviewer", b: "b" } },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "inner" },
      { from: "inner", to: "done" },
    ],
  },
};

const bootstrap = {
  tenants: DOMAINS.map((domain, i) =>
    i === 0
      ? {
          domain,
          name: "A University",
          copyright: "© A",
          logo: "https://a.edu/logo.png",
          workflow: {
            reminder: { channel: "email", text: "Please handle {step} of {process}" },
            notify: { on: true, channel: "email", application: "portal", todo: { text: "New: {step}" } },
          },
        }
      : { domain, name: `${domain.toUpperCase()} College` },
  ),
  applications: [
    { id: "app-sys", secret: SYS_SECRET, name: "Directory reader", scopes: ["sys_profile"] },
    {
      id: "app-kiosk",
      secret: KIOSK_SECRET,
      name: "Kiosk",
      scopes: ["send_mail"],
      grants: ["client_credentials", "password"],
      accessTokenTtlSeconds: 600,
    },
    {
      id: "app-portal",
      secret: PORTAL_SECRET,
      name: "Portal",
      type: "enterprise",
      tenant: "a.edu",
      redirectUris: ["https://portal.a.edu/callback"],
      scopes: ["basic"],
    },
    { id: "app-public", name: "Public client", type: "enterprise", tenant: "a.edu", scopes: ["basic"] },
    {
      id: "app-travel",
      secret: PORTAL_SECRET,
      name: "Travel",
      type: "workflow",
      tenant: "b.edu",
      workflowCode: "travel",
      disabled: true,
    },
  ],
  departments: [
    { tenant: "a.edu", code: "ai", name: "Artificial intelligence", parent: "cs" },
    { tenant: "a.edu", code: "cs", name: "Computer science", description: "The school of computing" },
  ],
  posts: [{ tenant: "a.edu", code: "head", name: "Head", formal: true }],
  positions: [
    { tenant: "a.edu", account: "alice", dept: "ai", post: "head", number: "S-1" },
    { tenant: "a.edu", account: "bob", dept: "cs", post: "head" },
  ],
  users: [
    ...ACCOUNTS.map((account) => ({
      tenant: "a.edu",
      account,
      name: account.toUpperCase(),
      email: `${account}@a.edu`,
      password: PASSWORD,
    })),
    { tenant: "b.edu", account: "alice", name: "Alice of B", phone: "+8613800000000", mailEnabled: true },
  ],
  seals: [
    { code: "registrar", name: "Registrar", image: dataUri(PLATFORM_SEAL), width: 60, height: 60 },
    {
      code: "registrar",
      tenant: "a.edu",
      name: "A Registrar",
      image: dataUri(TENANT_SEAL),
      width: 42.5,
      height: 40,
    },
  ],
  feeds: [{ tenant: "c.edu", url: "https://hr.c.edu/feed/", intervalSeconds: 0, enabled: false }],
  workflows: [
    {
      tenant: "a.edu",
      code: "leave",
      name: "Leave",
      tags: "HR,Staff",
      palette: "#336699",
      administrators: ["carol"],
      guests: ["dave", "bob"],
      starters: { accounts: ["bob"], positions: ["*:head"] },
      versions: [
        { name: "first", online: true, definition: leaveV1 },
        { beta: true, definition: leaveV2 },
      ],
    },
    { tenant: "a.edu", code: "travel", name: "Travel", versions: [{ online: true, definition: leaveV1 }] },
  ],
  tenantAdministrators: [{ tenant: "a.edu", accounts: ["carol"], positions: ["hr:head"] }],
};

interface Page<T> {
  items: T[];
  next: string | null;
}
interface TenantItem {
  domain: string;
  style: string | null;
  logo: string | null;
  copyright: string | null;
  workflow: { reminder: unknown; notify: unknown; statistics: unknown };
}
interface ApplicationItem {
  id: string;
  type: string;
  tenant: string | null;
  workflowCode: string | null;
  redirectUris: string[];
  grants: string[] | null;
  accessTokenTtlSeconds: number | null;
  disabled: boolean;
  hasSecret: boolean;
}
interface UserItem {
  account: string;
  name: string;
  email: string | null;
  mailEnabled: boolean;
  disabled: boolean;
  hasPassword: boolean;
  source: string;
}
interface SealItem {
  code: string;
  tenant: string | null;
  name: string;
  width: number;
  height: number;
  version: number;
  size: number;
  contentType: string;
}
interface WorkflowItem {
  code: string;
  name: string;
  tags: string;
  visible: boolean;
  ready: boolean;
  versionCount: number;
  versions: { number: number; name: string | null; online: boolean; beta: boolean }[];
}
/** The admin envelope of a failure. */
interface Failure {
  ecode: string;
  total: number;
  entities: unknown[];
}

/** Every answer text of the suite, searched for secrets at the end. */
const answers: string[] = [];

async function call(
  url: string,
  method: string,
  path: string,
  init: { token?: string; body?: unknown } = {},
) {
  const { token = ADMIN_TOKEN, body } = init;
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString("utf8");
  const isJson = response.headers.get("content-type")?.includes("json") ?? false;
  if (isJson) answers.push(text);
  const json: unknown = isJson ? JSON.parse(text) : undefined;
  return { status: response.status, headers: response.headers, text, json, bytes };
}

/** The admin envelope of a failed call. */
async function failure(url: string, path: string, token?: string) {
  const answer = await call(url, "GET", path, token === undefined ? {} : { token });
  return { status: answer.status, ...(answer.json as Failure) };
}

/** One page of a list, no-store. */
async function page<T>(url: string, path: string): Promise<Page<T>> {
  const answer = await call(url, "GET", path);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.headers.get("cache-control"), "no-store");
  return answer.json as Page<T>;
}

/** Every page of a list, `limit` at a time, and the `next` of each page. */
async function walk<T>(url: string, path: string, limit: number) {
  const items: T[] = [];
  const nexts: (string | null)[] = [];
  let after: string | null = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const cursor = after === null ? "" : `&after=${encodeURIComponent(after)}`;
    const shown: Page<T> = await page<T>(url, `${path}${separator}limit=${limit}${cursor}`);
    assert.ok(shown.items.length <= limit);
    items.push(...shown.items);
    nexts.push(shown.next);
    after = shown.next;
  } while (after !== null && nexts.length < 20);
  return { items, nexts };
}

async function clientToken(url: string, id: string, secret: string, form: Record<string, string>) {
  const response = await fetch(`${url}/oauth2/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`,
    },
    body: new URLSearchParams(form),
  });
  const body = (await response.json()) as { access_token?: string };
  return { status: response.status, token: body.access_token };
}

for (const mode of await testModes()) {
  describe(`admin API reads and the bootstrap export (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let url: string;

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({ ...(await withBootstrap(prepared.env, bootstrap)), ADMIN_TOKEN });
      url = platform.url;
      // Accounts the bootstrap does not write: one the feed manages, one pushed with a malformed address.
      const sql = platform.running.platform.db.sql;
      await sql`
        insert into users (tenant_id, account, name, source)
        select id, 'fed', 'From the feed', 'FEED' from tenants where domain = 'd.edu'`;
      await sql`
        insert into users (tenant_id, account, name, email)
        select id, 'pushed', 'Pushed', 'not an address' from tenants where domain = 'd.edu'`;
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("answers 401 without the operator token or with another, in the admin envelope", async () => {
      for (const path of [
        "/admin/tenants",
        "/admin/applications",
        "/admin/users?tenant=a.edu",
        "/admin/seals",
        "/admin/seals/registrar/image",
        "/admin/workflows/a.edu",
        "/admin/bootstrap",
      ]) {
        for (const token of ["", "wrong-token-0123456789abcdefghijklmnopqrst"]) {
          const answer = await failure(url, path, token);
          assert.equal(answer.status, 401, `${path} with ${token || "no token"}`);
          assert.equal(answer.ecode, "UNAUTHENTICATED");
          assert.equal(answer.total, 0);
        }
      }
    });

    it("pages tenants two at a time by domain, `next` ending with null", async () => {
      const { items, nexts } = await walk<TenantItem>(url, "/admin/tenants", 2);
      assert.deepEqual(
        items.map((tenant) => tenant.domain),
        DOMAINS,
      );
      assert.equal(nexts.length, 3);
      assert.ok(nexts.slice(0, 2).every((next) => typeof next === "string"));
      assert.equal(nexts[2], null);
      const [a, b] = items as [TenantItem, TenantItem];
      assert.equal(a.copyright, "© A");
      assert.equal(a.logo, "https://a.edu/logo.png");
      assert.deepEqual(a.workflow, {
        reminder: { channel: "email", text: "Please handle {step} of {process}" },
        notify: { on: true, channel: "email", application: "portal", todo: { text: "New: {step}" } },
        statistics: { on: false, timeZone: "UTC" },
      });
      assert.deepEqual(b.workflow, {
        reminder: null,
        notify: null,
        statistics: { on: false, timeZone: "UTC" },
      });
      assert.equal(b.style, null);
      const all = await page<TenantItem>(url, "/admin/tenants");
      assert.equal(all.items.length, 5, "the default limit holds them all");
      assert.equal(all.next, null);
    });

    it("pages applications, filters them by tenant, and shows whether each has a secret", async () => {
      const { items, nexts } = await walk<ApplicationItem>(url, "/admin/applications", 2);
      assert.deepEqual(
        items.map((app) => app.id),
        ["app-kiosk", "app-portal", "app-public", "app-sys", "app-travel"],
      );
      assert.equal(nexts.length, 3);
      assert.equal(nexts[2], null);
      const app = (id: string) => items.find((item) => item.id === id)!;
      assert.equal(app("app-public").hasSecret, false);
      assert.equal(app("app-sys").hasSecret, true);
      assert.deepEqual(app("app-kiosk").grants, ["client_credentials", "password"]);
      assert.equal(app("app-kiosk").accessTokenTtlSeconds, 600);
      assert.equal(app("app-sys").grants, null);
      assert.equal(app("app-sys").tenant, null);
      assert.deepEqual(app("app-portal").redirectUris, ["https://portal.a.edu/callback"]);
      assert.equal(app("app-portal").tenant, "a.edu");
      assert.equal(app("app-travel").disabled, true);
      assert.equal(app("app-travel").workflowCode, "travel");
      assert.equal(app("app-travel").type, "workflow");
      for (const item of items) assert.ok(!("secret" in item) && !("secretHash" in item));

      const ofA = await page<ApplicationItem>(url, "/admin/applications?tenant=a.edu");
      assert.deepEqual(
        ofA.items.map((item) => item.id),
        ["app-portal", "app-public"],
      );
      assert.equal(ofA.next, null);
      assert.deepEqual(await page(url, "/admin/applications?tenant=e.edu"), { items: [], next: null });
      assert.equal((await failure(url, "/admin/applications?tenant=nowhere.edu")).status, 404);
    });

    it("pages a tenant's accounts, matches the start of the account, never shows a password", async () => {
      const { items, nexts } = await walk<UserItem>(url, "/admin/users?tenant=a.edu", 2);
      assert.deepEqual(
        items.map((user) => user.account),
        ACCOUNTS,
      );
      assert.equal(nexts.length, 3);
      assert.equal(nexts[2], null);
      const [alex] = items as [UserItem];
      assert.equal(alex.email, "alex@a.edu");
      assert.equal(alex.hasPassword, true);
      assert.equal(alex.disabled, false);
      for (const user of items) assert.ok(!("password" in user) && !("passwordHash" in user));

      const al = await page<UserItem>(url, "/admin/users?tenant=a.edu&keyword=AL");
      assert.deepEqual(
        al.items.map((user) => user.account),
        ["alex", "alice"],
      );
      const wildcard = await page<UserItem>(url, "/admin/users?tenant=a.edu&keyword=%25");
      assert.deepEqual(wildcard.items, [], "a % is a character, not a wildcard");
      const ofB = await page<UserItem>(url, "/admin/users?tenant=b.edu");
      assert.deepEqual(
        ofB.items.map((user) => [user.account, user.name, user.hasPassword, user.mailEnabled]),
        [["alice", "Alice of B", false, true]],
      );
      const ofD = await page<UserItem>(url, "/admin/users?tenant=d.edu");
      assert.deepEqual(
        ofD.items.map((user) => [user.account, user.source]),
        [
          ["fed", "FEED"],
          ["pushed", "PUSH"],
        ],
      );
      assert.equal((await failure(url, "/admin/users")).status, 400, "the tenant is required");
      assert.equal((await failure(url, "/admin/users?tenant=nowhere.edu")).status, 404);
    });

    it("refuses a bad limit or cursor with 400 in the admin envelope", async () => {
      const tenantCursor = (await page<TenantItem>(url, "/admin/tenants?limit=1")).next!;
      for (const path of [
        "/admin/tenants?limit=0",
        "/admin/tenants?limit=501",
        "/admin/tenants?limit=two",
        "/admin/tenants?after=not-a-cursor!",
        `/admin/tenants?after=${Buffer.from("{}").toString("base64url")}`,
        `/admin/tenants?after=${Buffer.from('["a", "b"]').toString("base64url")}`,
        `/admin/seals?after=${tenantCursor}`,
        `/admin/users?tenant=a.edu&after=${"A".repeat(5000)}`,
        "/admin/users?tenant=a.edu&keyword=",
        "/admin/workflows/a.edu?after=%00",
      ]) {
        const answer = await failure(url, path);
        assert.equal(answer.status, 400, path);
        assert.equal(answer.ecode, "INVALID_ARGUMENT");
        assert.deepEqual(answer.entities, []);
      }
      const rest = await page<TenantItem>(url, `/admin/tenants?limit=500&after=${tenantCursor}`);
      assert.deepEqual(
        rest.items.map((tenant) => tenant.domain),
        DOMAINS.slice(1),
      );
    });

    it("lists seals without their images, and answers each image as it was given", async () => {
      const { items, nexts } = await walk<SealItem>(url, "/admin/seals", 1);
      assert.equal(nexts.length, 2);
      const common = { code: "registrar", contentType: "image/png", version: 1 };
      assert.deepEqual(
        items.map(({ code, tenant, name, width, height, size, contentType, version }) => ({
          code,
          tenant,
          name,
          width,
          height,
          size,
          contentType,
          version,
        })),
        [
          { ...common, tenant: null, name: "Registrar", width: 60, height: 60, size: PLATFORM_SEAL.length },
          {
            ...common,
            tenant: "a.edu",
            name: "A Registrar",
            width: 42.5,
            height: 40,
            size: TENANT_SEAL.length,
          },
        ],
      );
      for (const seal of items) assert.ok(!("image" in seal));

      const platformImage = await call(url, "GET", "/admin/seals/registrar/image");
      assert.equal(platformImage.status, 200);
      assert.equal(platformImage.headers.get("content-type"), "image/png");
      assert.equal(platformImage.headers.get("cache-control"), "no-store");
      assert.ok(platformImage.bytes.equals(PLATFORM_SEAL));
      const tenantImage = await call(url, "GET", "/admin/seals/registrar/image?tenant=a.edu");
      assert.ok(tenantImage.bytes.equals(TENANT_SEAL));
      assert.equal((await failure(url, "/admin/seals/registrar/image?tenant=b.edu")).status, 404);
      assert.equal((await failure(url, "/admin/seals/registrar/image?tenant=nowhere.edu")).status, 404);
      const missing = await failure(url, "/admin/seals/dean/image");
      assert.equal(missing.status, 404);
      assert.equal(missing.ecode, "NOT_FOUND");
    });

    it("lists a tenant's workflow apps with their versions and which are online", async () => {
      const { items, nexts } = await walk<WorkflowItem>(url, "/admin/workflows/a.edu", 1);
      assert.equal(nexts.length, 2);
      assert.deepEqual(
        items.map((app) => app.code),
        ["leave", "travel"],
      );
      const [leave] = items as [WorkflowItem];
      assert.equal(leave.name, "Leave");
      assert.equal(leave.tags, "HR,Staff");
      assert.equal(leave.visible, true);
      assert.equal(leave.ready, true);
      assert.equal(leave.versionCount, 2);
      assert.deepEqual(
        leave.versions.map(({ number, name, online, beta }) => ({ number, name, online, beta })),
        [
          { number: 2, name: null, online: false, beta: true },
          { number: 1, name: "first", online: true, beta: false },
        ],
      );
      assert.deepEqual(await page(url, "/admin/workflows/b.edu"), { items: [], next: null });
      assert.equal((await failure(url, "/admin/workflows/nowhere.edu")).status, 404);
    });

    it("exports the configuration as a bootstrap document without secrets, which applied changes nothing", async () => {
      const exported = await call(url, "GET", "/admin/bootstrap");
      assert.equal(exported.status, 200, exported.text);
      assert.equal(exported.headers.get("cache-control"), "no-store");
      assert.equal(exported.headers.get("x-omitted-entries"), "1", "the account with a malformed address");
      const document = exported.json as Bootstrap;
      assert.ok(bootstrapSchema.safeParse(document).success, "valid against the bootstrap schema");
      assert.deepEqual(Object.keys(document).sort(), [
        "applications",
        "departments",
        "feeds",
        "memberships",
        "positions",
        "posts",
        "seals",
        "tags",
        "tenantAdministrators",
        "tenants",
        "users",
        "workflows",
      ]);
      assert.deepEqual(document.tenantAdministrators, bootstrap.tenantAdministrators);
      assert.deepEqual(document.departments, bootstrap.departments, "the directory the file made");
      assert.deepEqual(document.posts, bootstrap.posts);
      assert.deepEqual(document.positions, bootstrap.positions);
      assert.deepEqual(
        document.tenants.map((tenant) => tenant.domain),
        DOMAINS,
      );
      assert.deepEqual(document.tenants[0], bootstrap.tenants[0]);
      assert.deepEqual(
        document.applications.find((app) => app.id === "app-kiosk"),
        {
          id: "app-kiosk",
          name: "Kiosk",
          type: "global",
          redirectUris: [],
          scopes: ["send_mail"],
          implicitAllowed: false,
          grants: ["client_credentials", "password"],
          accessTokenTtlSeconds: 600,
          disabled: false,
        },
      );
      assert.deepEqual(
        document.users.map((user) => `${user.account}@${user.tenant}`),
        [...ACCOUNTS.map((account) => `${account}@a.edu`), "alice@b.edu"],
        "neither the feed's account nor the one the schema refuses",
      );
      assert.deepEqual(document.users.at(-1), {
        tenant: "b.edu",
        account: "alice",
        name: "Alice of B",
        phone: "+8613800000000",
        mailEnabled: true,
        disabled: false,
      });
      assert.deepEqual(document.seals, bootstrap.seals);
      assert.deepEqual(document.feeds, [
        {
          tenant: "c.edu",
          url: "https://hr.c.edu/feed/",
          addresses: "{entity}",
          intervalSeconds: 0,
          timeoutSeconds: 300,
          enabled: false,
        },
      ]);
      const [leave, travel] = document.workflows as [Bootstrap["workflows"][0], Bootstrap["workflows"][0]];
      assert.equal(leave.code, "leave");
      assert.deepEqual(leave.administrators, ["carol"]);
      assert.deepEqual(leave.guests, ["bob", "dave"]);
      assert.deepEqual(leave.starters, { accounts: ["bob"], positions: ["*:head"] });
      assert.deepEqual(
        leave.versions.map(({ name, online, beta }) => ({ name, online, beta })),
        [
          { name: "first", online: true, beta: false },
          { name: undefined, online: false, beta: true },
        ],
      );
      assert.match(JSON.stringify(leave.versions[1]!.definition), /"data":\{"b":"b","reviewer":"reviewer"\}/);
      assert.equal(travel.code, "travel");
      assert.equal(travel.administrators, undefined);
      assert.equal(travel.starters, undefined, "an app naming no starter is everyone's");

      const applied = await call(url, "PUT", "/admin/bootstrap", { body: document });
      assert.equal(applied.status, 200, applied.text);
      const again = await call(url, "GET", "/admin/bootstrap");
      assert.deepEqual(again.json, document, "applying the export changes nothing it shows");
      const workflows = await page<WorkflowItem>(url, "/admin/workflows/a.edu");
      assert.equal(workflows.items[0]!.versionCount, 2, "no version deployed again");
      const seals = await page<SealItem>(url, "/admin/seals");
      assert.deepEqual(
        seals.items.map((seal) => seal.version),
        [1, 1],
      );

      const sys = await clientToken(url, "app-sys", SYS_SECRET, {
        grant_type: "client_credentials",
        scope: "sys_profile",
      });
      assert.equal(sys.status, 200, "the application keeps its secret");
      const user = await clientToken(url, "app-kiosk", KIOSK_SECRET, {
        grant_type: "password",
        username: "alice@a.edu",
        password: PASSWORD,
        scope: "send_mail",
      });
      assert.equal(user.status, 200, "the account keeps its password");
      const stillOff = await clientToken(url, "app-travel", PORTAL_SECRET, {
        grant_type: "client_credentials",
      });
      assert.equal(stillOff.status, 401, "a disabled application stays disabled");
    });

    it("shows no secret, password or hash in any answer", () => {
      assert.ok(answers.length > 40);
      const text = answers.join("\n");
      for (const secret of [SYS_SECRET, KIOSK_SECRET, PORTAL_SECRET, PASSWORD, ADMIN_TOKEN]) {
        assert.ok(!text.includes(secret), `an answer shows ${secret}`);
      }
      for (const secret of [SYS_SECRET, KIOSK_SECRET, PORTAL_SECRET]) {
        const hash = createHash("sha256").update(secret).digest();
        for (const encoding of ["hex", "base64", "base64url"] as const) {
          assert.ok(!text.includes(hash.toString(encoding)), `an answer shows a secret's hash (${encoding})`);
        }
      }
      for (const marker of [
        "scrypt$",
        "$argon2",
        "$2b$",
        "secret_hash",
        "password_hash",
        '"Buffer"',
        "\\x",
      ]) {
        assert.ok(!text.includes(marker), `an answer shows ${marker}`);
      }
      assert.ok(
        !/"(secret|password|passwordHash|secretHash)"\s*:/.test(text),
        "an answer carries a secret's field",
      );
    });
  });
}
