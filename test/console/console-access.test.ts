import assert from "node:assert/strict";
import { consoleCookie } from "../support/console-session.ts";
import { startTestPlatform, type TestPlatform, tempDir, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";

/**
 * The console's access page over plain HTTP, as a browser's forms send it: a tenant's
 * administrators and an app's starters, saved there, are what the admin API and the workflow
 * API then follow.
 */

const ADMIN_TOKEN = "console-access-operator-token-0123456789ab";
const FORM = { "content-type": "application/x-www-form-urlencoded" };

const definition = {
  schema: { fields: [] },
  graph: {
    nodes: [
      { kind: "start", code: "apply", name: "Apply" },
      { kind: "end", code: "done", name: "Done" },
    ],
    edges: [{ from: "apply", to: "done" }],
  },
};

describe("the console's access page", () => {
  let platform: TestPlatform;
  let removeDir: () => Promise<void>;
  let cookie = "";
  const at = (path: string) => `${platform.url}${path}`;
  const page = async (path: string) => {
    const response = await fetch(at(path), { headers: { cookie } });
    assert.equal(response.status, 200);
    return response.text();
  };
  const post = async (path: string, fields: Record<string, string>) => {
    const html = await page("/console/access?tenant=example.edu");
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    return fetch(at(path), {
      method: "POST",
      headers: { ...FORM, cookie },
      body: new URLSearchParams({ csrf, ...fields }),
      redirect: "manual",
    });
  };
  const administrators = async () =>
    (await fetch(at("/admin/tenants/example.edu/administrators"), {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    }).then((response) => response.json())) as { accounts: string[]; positions: string[] };

  before(async () => {
    const dir = await tempDir();
    removeDir = dir.remove;
    platform = await startTestPlatform({
      ...(await withBootstrap(
        { DATA_DIR: dir.path },
        {
          tenants: [{ domain: "example.edu", name: "Example University" }],
          users: [
            { tenant: "example.edu", account: "dana", name: "Dana Scully" },
            { tenant: "example.edu", account: "fox", name: "Fox Mulder" },
          ],
          workflows: [
            { tenant: "example.edu", code: "leave", name: "Leave", versions: [{ definition, online: true }] },
          ],
          tenantAdministrators: [{ tenant: "example.edu", accounts: ["fox"] }],
        },
      )),
      ADMIN_TOKEN,
    });
    cookie = await consoleCookie(platform.url, ADMIN_TOKEN);
  });
  after(async () => {
    await platform?.stop();
    await removeDir?.();
  });

  it("shows the tenant's administrators and each app's starters", async () => {
    const html = await page("/console/access?tenant=example.edu");
    assert.match(html, /Tenant administrators/);
    assert.match(html, /name="accounts" value="fox"/);
    assert.match(html, /<span class="muted">everyone in the tenant<\/span>/, "leave names no starters");
    assert.equal(
      (await fetch(at("/console/access?tenant=nowhere.edu"), { headers: { cookie } })).status,
      404,
    );
  });

  it("saves a tenant's administrators and an app's starters, replacing the earlier lists", async () => {
    const saved = await post("/console/access/administrators", {
      tenant: "example.edu",
      accounts: "dana",
      positions: "cs:*, math:head",
    });
    assert.equal(saved.status, 303);
    assert.deepEqual(await administrators(), {
      tenant: "example.edu",
      accounts: ["dana"],
      positions: ["cs:*", "math:head"],
    });

    const starters = await post("/console/access/starters", {
      tenant: "example.edu",
      code: "leave",
      accounts: "fox",
      positions: "",
    });
    assert.equal(starters.status, 303);
    const html = await page("/console/access?tenant=example.edu");
    assert.doesNotMatch(html, /<span class="muted">everyone in the tenant<\/span>/);
    assert.match(html, /<li>fox<\/li>/);

    const unknown = await post("/console/access/starters", {
      tenant: "example.edu",
      code: "leave",
      accounts: "nobody",
    });
    assert.equal(unknown.status, 400);
    const malformed = await post("/console/access/administrators", {
      tenant: "example.edu",
      positions: "no-colon",
    });
    assert.equal(malformed.status, 400);
    assert.deepEqual((await administrators()).accounts, ["dana"], "a refused list changes nothing");
  });
});
