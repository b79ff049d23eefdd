import assert from "node:assert/strict";
import {
  APP,
  bpmnOf,
  type ConsoleWorkflowWorld,
  consoleWorkflowWorld,
  csrfOf,
  reviewDefinition,
  startReview,
  TENANT,
  withTimer,
} from "../support/console-workflow-world.ts";
import { testModes } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";

/**
 * The console's workflow pages over HTTP, in both running modes: apps and versions, deploying from
 * a file, taking versions on and off line, diagrams, the process search and page with its operator
 * actions, and the stuck list.
 */

const FORM = { "content-type": "application/x-www-form-urlencoded" };

for (const mode of await testModes()) {
  describe(`the console's workflow pages (${mode.name})`, { skip: mode.skip }, () => {
    let world: ConsoleWorkflowWorld;
    const at = (path: string) => `${world.platform.url}${path}`;
    const page = (path: string) => fetch(at(path), { headers: { cookie: world.cookie }, redirect: "manual" });
    const html = async (path: string) => {
      const response = await page(path);
      assert.equal(response.status, 200, path);
      return response.text();
    };
    let csrf = "";
    /** Posts a form as the page's would, answering the page the redirect leads to. */
    async function post(path: string, fields: Record<string, string>): Promise<string> {
      const response = await fetch(at(path), {
        method: "POST",
        headers: { ...FORM, cookie: world.cookie },
        body: new URLSearchParams({ csrf, ...fields }),
        redirect: "manual",
      });
      await response.body?.cancel();
      assert.equal(response.status, 303, `${path} redirects`);
      return html(response.headers.get("location")!);
    }
    async function deploy(code: string, file: string, name: string, flags: Record<string, string> = {}) {
      const form = new FormData();
      form.set("csrf", csrf);
      form.set("tenant", TENANT);
      form.set("code", code);
      for (const [flag, value] of Object.entries(flags)) form.set(flag, value);
      form.set("file", new Blob([file]), name);
      const response = await fetch(at("/console/workflows/deploy"), {
        method: "POST",
        headers: { cookie: world.cookie },
        body: form,
        redirect: "manual",
      });
      await response.body?.cancel();
      assert.equal(response.status, 303);
      return html(response.headers.get("location")!);
    }
    const flash = (text: string) => /<p class="flash (done|error)"[^>]*>([^<]*)</.exec(text)?.slice(1) ?? [];

    before(async () => {
      world = await consoleWorkflowWorld(mode);
      csrf = csrfOf(await html("/console/workflows"));
    });
    after(async () => {
      await world?.close();
    });

    it("lists a tenant's apps with their versions, online or not, and their processes", async () => {
      await startReview(world.sql, "walter");
      const text = await html(`/console/workflows?tenant=${TENANT}`);
      assert.match(text, /Review <code>reviews<\/code>/);
      assert.match(text, /1 version ·/);
      const row = /<tr data-version="[^"]+">([\s\S]*?)<\/tr>/.exec(text)![1]!;
      assert.match(row, /<strong class="flag">online<\/strong>[\s\S]*Take off line/);
      assert.match(row, /<span class="muted">offline<\/span>[\s\S]*Put on line/);
      assert.match(row, /<td class="number">1<\/td>/, "one process of the version");
      assert.match(
        text,
        /href="\/console\/workflows\/diagram\?tenant=example\.edu&amp;app=reviews&amp;version=/,
      );
    });

    it("answers the tenant picker alone without a tenant, and 404 for a tenant there is not", async () => {
      const text = await html("/console/workflows");
      assert.match(text, /name="tenant"/);
      assert.doesNotMatch(text, /Deploy a version/);
      const missing = await page("/console/workflows?tenant=nowhere.edu");
      assert.equal(missing.status, 404);
      assert.match(await missing.text(), /no tenant nowhere\.edu/);
    });

    it("deploys a BPMN file and a JSON file, the same definition again being the same version", async () => {
      const definition = reviewDefinition(["fox"], "check");
      const bpmn = await bpmnOf(definition, "drawn");
      let text = await deploy("drawn", bpmn, "drawn.bpmn", { online: "true" });
      assert.deepEqual(flash(text), ["done", "Version 1 of drawn is deployed."]);
      assert.match(text, /<code>drawn<\/code>/);
      text = await deploy("drawn", JSON.stringify(definition), "drawn.json");
      assert.deepEqual(flash(text), ["done", "That definition is version 1 of drawn already."]);
      const drawn = async () =>
        world.sql<{ number: number; online: boolean; name: string }[]>`
          select v.number, v.online_formal as online, a.name from workflow_versions v
          join workflow_apps a on a.id = v.app_id where a.code = 'drawn' order by v.number`;
      assert.deepEqual(
        (await drawn()).map((v) => v.online),
        [true],
        "the boxes left empty leave the version as it is",
      );
      text = await deploy(
        "drawn",
        JSON.stringify({ definition: reviewDefinition(["dana"], "check") }),
        "v2.json",
      );
      assert.deepEqual(flash(text), ["done", "Version 2 of drawn is deployed."]);
      // The admin API's deployment body, as the README shows it, with the app's fields.
      text = await deploy(
        "drawn",
        JSON.stringify({
          definition: reviewDefinition(["erin"], "check"),
          online: true,
          app: { name: "Drawn" },
        }),
        "v3.json",
      );
      assert.deepEqual(flash(text), ["done", "Version 3 of drawn is deployed."]);
      const versions = await drawn();
      assert.deepEqual(
        versions.map((v) => [v.number, v.online]),
        [
          [1, true],
          [2, false],
          [3, true],
        ],
      );
      assert.equal(versions[0]!.name, "Drawn");
    });

    it("refuses a file the engine cannot run, naming the element, and a file that is neither", async () => {
      const bpmn = withTimer(await bpmnOf(reviewDefinition(["fox"]), "timed"));
      let text = await deploy("timed", bpmn, "timed.bpmn");
      const [kind, message] = flash(text);
      assert.equal(kind, "error");
      assert.match(message!, /Timer_1 \(bpmn:IntermediateCatchEvent\)/);
      text = await deploy("timed", "not a workflow", "timed.txt");
      assert.match(flash(text)[1]!, /file: neither BPMN nor JSON/);
      text = await deploy("timed", JSON.stringify({ graph: { nodes: [], edges: [] } }), "empty.json");
      assert.equal(flash(text)[0], "error");
      assert.doesNotMatch(await html(`/console/workflows?tenant=${TENANT}`), /<code>timed<\/code>/);
    });

    it("takes a version off line and on again", async () => {
      const list = await html(`/console/workflows?tenant=${TENANT}`);
      const version = /<code>reviews<\/code>[\s\S]*?<tr data-version="([^"]+)">/.exec(list)![1]!;
      const change = { tenant: TENANT, app: APP, version, mode: "test", online: "true" };
      let text = await post("/console/workflows/online", change);
      assert.deepEqual(flash(text), ["done", "The version of reviews is online for test data."]);
      const [online] = await world.sql<{ onlineTest: boolean }[]>`
        select online_test as "onlineTest" from workflow_versions where id = ${version}`;
      assert.equal(online!.onlineTest, true);
      text = await post("/console/workflows/online", { ...change, online: "false" });
      assert.match(flash(text)[1]!, /offline for test data/);
    });

    it("refuses a form without the session's token", async () => {
      const response = await fetch(at("/console/workflows/online"), {
        method: "POST",
        headers: { ...FORM, cookie: world.cookie },
        body: new URLSearchParams({ tenant: TENANT, app: APP, version: "x", mode: "test", online: "true" }),
      });
      assert.equal(response.status, 403);
      await response.body?.cancel();
      const upload = new FormData();
      upload.set("tenant", TENANT);
      upload.set("code", "sneaky");
      upload.set("file", new Blob(["{}"]), "x.json");
      const deployed = await fetch(at("/console/workflows/deploy"), {
        method: "POST",
        headers: { cookie: world.cookie },
        body: upload,
      });
      assert.equal(deployed.status, 403);
      await deployed.body?.cancel();
    });

    it("serves a version's diagram page with its BPMN, the viewer and its script from the console", async () => {
      const list = await html(`/console/workflows?tenant=${TENANT}`);
      const link = /href="(\/console\/workflows\/diagram\?[^"]+)"/.exec(list)![1]!.replaceAll("&amp;", "&");
      const response = await page(link);
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-security-policy")!, /script-src 'self'/);
      assert.doesNotMatch(response.headers.get("content-security-policy")!, /unsafe/);
      const text = await response.text();
      assert.match(text, /data-bpmn="&lt;\?xml/);
      assert.match(text, /id=&quot;review&quot;/);
      assert.match(text, /<script src="\/console\/static\/bpmn-viewer\.js" defer="">/);
      assert.doesNotMatch(text, /<script>|<script [^>]*>[^<]/, "no inline script");
      for (const [name, type] of [
        ["bpmn-viewer.js", "text/javascript"],
        ["workflow-diagram.js", "text/javascript"],
        ["bpmn-js.css", "text/css"],
        ["diagram-js.css", "text/css"],
      ] as const) {
        const asset = await page(`/console/static/${name}`);
        assert.equal(asset.status, 200, name);
        assert.match(asset.headers.get("content-type")!, new RegExp(type));
        await asset.body?.cancel();
        // Kept by the browser and asked for again only to learn it has not changed.
        assert.equal(asset.headers.get("cache-control"), "private, no-cache", name);
        const again = await fetch(at(`/console/static/${name}`), {
          headers: { cookie: world.cookie, "if-none-match": asset.headers.get("etag")! },
        });
        assert.equal(again.status, 304, name);
        await again.body?.cancel();
      }
      const missing = await page("/console/static/secret.js");
      assert.equal(missing.status, 404);
      await missing.body?.cancel();
      const other = await page("/console/tenants");
      assert.doesNotMatch(other.headers.get("content-security-policy")!, /script-src/);
      assert.equal(other.headers.get("cache-control"), "no-store", "pages are never kept");
      await other.body?.cancel();
    });

    it("finds processes by serial number, owner, app and status, newest first", async () => {
      const first = await startReview(world.sql, "dana");
      const second = await startReview(world.sql, "fox");
      const search = (query: string) => html(`/console/workflows/processes?tenant=${TENANT}&${query}`);
      const serials = (text: string) =>
        [...text.matchAll(/href="\/console\/workflows\/processes\/[^"]+">(\d+)</g)].map((m) => Number(m[1]));
      const all = serials(await search(""));
      assert.deepEqual(all.slice(0, 2), [second.entry, first.entry]);
      assert.deepEqual(serials(await search(`entry=${first.entry}`)), [first.entry]);
      assert.deepEqual(serials(await search("owner=fox")), [second.entry]);
      assert.deepEqual(serials(await search(`app=${APP}&status=doing`)).includes(first.entry), true);
      assert.deepEqual(serials(await search("status=killed")), []);
      assert.deepEqual(serials(await search("app=nothing")), []);
      const bad = await page(`/console/workflows/processes?tenant=${TENANT}&status=lost`);
      assert.equal(bad.status, 400);
      await bad.body?.cancel();
    });

    it("shows a process: its steps marked on the diagram, who may handle the waiting task, activities, data", async () => {
      const { id } = await startReview(world.sql, "walter", { reason: "<b>a holiday</b>" });
      const text = await html(`/console/workflows/processes/${id}`);
      assert.match(text, /data-current="review"/);
      assert.match(text, /<tr data-task="[^"]+">\s*<td>\s*<code>review<\/code>/);
      assert.match(text, /Dana Scully \(dana\)/);
      assert.match(text, /&lt;b&gt;a holiday&lt;\/b&gt;/, "the data escaped");
      assert.doesNotMatch(text, /<b>a holiday/);
      assert.match(text, /<table class="activities">[\s\S]*<td>INSTANCE<\/td>/);
      const missing = await page("/console/workflows/processes/00000000-0000-4000-8000-000000000000");
      assert.equal(missing.status, 404);
      await missing.body?.cancel();
    });

    it("suspends, resumes and kills a process once confirmed, recorded as the system's", async () => {
      const { id } = await startReview(world.sql, "walter");
      const path = `/console/workflows/processes/${id}/action`;
      let text = await post(path, { action: "suspend" });
      assert.deepEqual(flash(text), ["error", "confirm: tick the box to confirm"]);
      text = await post(path, { action: "suspend", confirm: "yes", remark: "on hold" });
      assert.deepEqual(flash(text), ["done", "The process is suspended."]);
      assert.match(text, /data-status="suspended"/);
      text = await post(path, { action: "suspend", confirm: "yes" });
      assert.equal(flash(text)[0], "error", "a suspended process is not suspended again");
      text = await post(path, { action: "resume", confirm: "yes" });
      assert.match(text, /data-status="doing"/);
      text = await post(path, { action: "kill", confirm: "yes" });
      assert.match(text, /data-status="killed"/);
      assert.doesNotMatch(text, /value="kill"/, "nothing left to do to an ended process");
      const users = await world.sql<{ userId: string | null }[]>`
        select user_id as "userId" from workflow_activities
        where process_id = ${id} and tags in ('INSTANCE_SUSPEND', 'INSTANCE_RESUME', 'INSTANCE_KILL')`;
      assert.deepEqual(
        users.map((row) => row.userId),
        [null, null, null],
      );
    });

    it("reassigns a waiting task to other users, refusing accounts the tenant lacks", async () => {
      const { id } = await startReview(world.sql, "walter");
      const text0 = await html(`/console/workflows/processes/${id}`);
      const task = /<tr data-task="([^"]+)">/.exec(text0)![1]!;
      const path = `/console/workflows/processes/${id}/reassign`;
      let text = await post(path, { task, accounts: "fox, nobody-here", confirm: "yes" });
      assert.equal(flash(text)[0], "error");
      assert.match(flash(text)[1]!, /not an enabled user of the tenant: nobody-here$/);
      text = await post(path, { task, accounts: "fox, walter", confirm: "yes" });
      assert.deepEqual(flash(text), ["done", "The task is given to fox, walter."]);
      assert.match(text, /Fox Mulder \(fox\)/);
      assert.match(text, /Walter Skinner \(walter\)/);
      assert.doesNotMatch(text, /Dana Scully \(dana\)/);
      const other = await startReview(world.sql, "walter");
      text = await post(`/console/workflows/processes/${other.id}/reassign`, {
        task,
        accounts: "dana",
        confirm: "yes",
      });
      assert.equal(flash(text)[0], "error", "a task of another process");
    });

    it("lists to-dos waiting past a threshold, and those nobody can handle", async () => {
      const old = await startReview(world.sql, "walter");
      await world.sql`
        update workflow_tasks set assigned_at = now() - interval '5 days' where process_id = ${old.id}`;
      const stale = await html(`/console/workflows/stuck?tenant=${TENANT}`);
      assert.match(stale, new RegExp(`href="/console/workflows/processes/${old.id}">${old.entry}<`));
      assert.doesNotMatch(
        await html(`/console/workflows/stuck?tenant=${TENANT}&days=10`),
        new RegExp(`processes/${old.id}`),
      );
      const orphan = await startReview(world.sql, "fox");
      assert.doesNotMatch(
        await html(`/console/workflows/stuck?tenant=${TENANT}&kind=unhandled`),
        new RegExp(`processes/${orphan.id}`),
      );
      await world.sql`update users set disabled = true where account = 'dana'`;
      try {
        const unhandled = await html(`/console/workflows/stuck?tenant=${TENANT}&kind=unhandled`);
        assert.match(unhandled, new RegExp(`processes/${orphan.id}">${orphan.entry}<`));
      } finally {
        await world.sql`update users set disabled = false where account = 'dana'`;
      }
      const bad = await page(`/console/workflows/stuck?tenant=${TENANT}&days=-1`);
      assert.equal(bad.status, 400);
      await bad.body?.cancel();
    });

    it("lists a process's activities newest first, whatever the number of digits of their ids", async () => {
      const { id } = await startReview(world.sql, "walter");
      await world.sql`delete from workflow_activities where process_id = ${id}`;
      // Ids on both sides of 10^8, which a comparison as text would put out of order.
      await world.sql`
        insert into workflow_activities (id, tenant_id, test, process_id, entry, app_id, category, level, description)
        overriding system value
        select 99999990 + n, p.tenant_id, p.test, p.id, p.entry, p.app_id, 'INSTANCE', 'INFO', 'step ' || n
        from workflow_processes p, generate_series(1, 20) n where p.id = ${id}`;
      const text = await html(`/console/workflows/processes/${id}`);
      const shown = [...text.matchAll(/step (\d+)\b/g)].map((match) => Number(match[1]));
      assert.deepEqual(
        shown,
        Array.from({ length: 20 }, (_, i) => 20 - i),
      );
    });

    it("shows a process of 1,000 activities with its newest 50 and their count", async () => {
      const { id } = await startReview(world.sql, "walter");
      await world.sql`
        insert into workflow_activities (tenant_id, test, process_id, entry, app_id, category, level, description)
        select p.tenant_id, p.test, p.id, p.entry, p.app_id, 'INSTANCE', 'INFO', 'note ' || n
        from workflow_processes p, generate_series(1, 1000) n where p.id = ${id}`;
      const path = `/console/workflows/processes/${id}`;
      const text = await html(path);
      assert.match(text, /The newest 50 of 10\d\d\./);
      assert.match(text, /note 1000\b/);
      assert.doesNotMatch(text, /note 950\b/, "no more than the newest 50");
    });
  });
}
