import assert from "node:assert/strict";
import { buildDocx } from "../support/docx-fixtures.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { sysToken } from "../support/workflow-fixture.ts";

const SECRET = "json-nesting-secret-0123456789abcdefghijk";
const LIMIT = /deeper than 64 levels \(JSON_MAX_DEPTH\)/;

/** `levels` arrays, one inside the other, as text: what a client sends, never parsed here. */
const deepArray = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
/** `levels` objects, one inside the other: `{"a":{"a":…{}}}`. */
const deepObject = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}`;

/** A form whose `attachment` field takes any object: data as deep as a caller likes reaches storage. */
const filing = {
  schema: {
    fields: [
      { name: "title", type: "string" },
      { name: "attachment", type: "file" },
    ],
  },
  graph: {
    nodes: [
      { kind: "start", code: "apply", name: "Apply" },
      { kind: "end", code: "done", name: "Done" },
    ],
    edges: [{ from: "apply", to: "done" }],
  },
};

for (const mode of await testModes()) {
  describe(`JSON nested past the limit (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: (() => Promise<void>) | undefined;
    let token: string;
    let template: string;

    const post = (path: string, init: { body: string; type?: string; method?: string }) =>
      fetch(`${platform.url}${path}`, {
        method: init.method ?? "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": init.type ?? "application/json" },
        body: init.body,
      });

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform(
        await withBootstrap(prepared.env, {
          tenants: [{ domain: "example.edu", name: "Example University" }],
          applications: [
            {
              id: "portal",
              secret: SECRET,
              name: "Portal",
              type: "enterprise",
              tenant: "example.edu",
              scopes: ["sys_start", "sys_process", "send_app_notification"],
            },
          ],
          users: [{ tenant: "example.edu", account: "alice", name: "Alice", password: "a password" }],
          workflows: [
            {
              tenant: "example.edu",
              code: "filing",
              name: "Filing",
              versions: [{ definition: filing, online: true, beta: true }],
            },
          ],
        }),
      );
      token = await sysToken(platform.url, "portal", SECRET, "sys_start sys_process send_app_notification");
      const form = new FormData();
      form.set("file", new Blob([new Uint8Array(buildDocx([{ paragraph: ["${title}"] }]))]), "t.docx");
      const uploaded = await fetch(`${platform.url}/file?access_token=${token}`, {
        method: "PUT",
        body: form,
      });
      assert.equal(uploaded.status, 200, await uploaded.clone().text());
      template = ((await uploaded.json()) as { entities: { uri: string }[] }).entities[0]!.uri;
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("refuses an export whose data nests 100,000 levels with a 400 naming the limit, in a body, the query or a form", async () => {
      const data = `{"photo":${deepArray(100_000)}}`;
      const inBody = await post("/export/docx", {
        body: `{"template":${JSON.stringify(template)},"data":${data}}`,
      });
      assert.equal(inBody.status, 400);
      const envelope = (await inBody.json()) as { errno: number; ecode: string; error: string };
      assert.equal(envelope.errno, 10001);
      assert.equal(envelope.ecode, "INVALID_ARGUMENT");
      assert.match(envelope.error, /^body: JSON nests/);
      assert.match(envelope.error, LIMIT);

      const deepData = `${'{"a":'.repeat(99)}1${"}".repeat(99)}`;
      const query = new URLSearchParams({ template, data: deepData });
      const inQuery = await post(`/export/docx?${query}`, { body: "", type: "text/plain" });
      assert.equal(inQuery.status, 400);
      assert.match(((await inQuery.json()) as { error: string }).error, /^data: JSON nests/);

      const inForm = await post("/export/xlsx", {
        body: new URLSearchParams({ data: deepArray(65) }).toString(),
        type: "application/x-www-form-urlencoded",
      });
      assert.equal(inForm.status, 400);
      assert.match(((await inForm.json()) as { error: string }).error, LIMIT);
    });

    it("refuses a notification nested past the limit in spec 000's envelope, and a template content as deep", async () => {
      const answer = await post("/v1/notification", {
        method: "PUT",
        body: `{"channels":["app"],"users":[{"account":"alice"}],"title":"t","app":{"content":${deepArray(5_000)}}}`,
      });
      assert.equal(answer.status, 400);
      const envelope = (await answer.json()) as { errno: number; error: string; total: number };
      assert.deepEqual(Object.keys(envelope).sort(), ["errno", "error", "total"]);
      assert.equal(envelope.errno, 10001);
      assert.match(envelope.error, LIMIT);

      const content = `{"template_id":"t","data":{},"extra":${deepObject(65)}}`;
      const template = await post("/v1/notification", {
        method: "PUT",
        body: JSON.stringify({ channels: ["msgapp_template"], users: [{ account: "alice" }], content }),
      });
      assert.equal(template.status, 400);
      assert.match(((await template.json()) as { error: string }).error, /^content: JSON nests/);
    });

    it("takes workflow data 64 levels deep and refuses 65, in a JSON body or as text", async () => {
      const start = (data: string) =>
        post("/apis/v2/process", {
          method: "PUT",
          body: `{"code":"filing","userId":"alice","data":{"attachment":${data}}}`,
        });
      // The body, `data` and the attachment's 62 objects: 64 levels.
      const deepest = await start(deepObject(62));
      assert.equal(deepest.status, 200);
      assert.equal(((await deepest.json()) as { errno: number }).errno, 0);

      const tooDeep = await start(deepObject(63));
      assert.equal(tooDeep.status, 400);
      const envelope = (await tooDeep.json()) as { errno: number; ecode: string; error: string };
      assert.equal(envelope.ecode, "INVALID_ARGUMENT");
      assert.match(envelope.error, LIMIT);

      const asText = `{"attachment":${deepObject(64)}}`;
      const query = new URLSearchParams({ code: "filing", userId: "alice", data: asText });
      const inQuery = await post(`/apis/v2/process?${query}`, {
        method: "PUT",
        body: "",
        type: "text/plain",
      });
      assert.equal(inQuery.status, 400);
      assert.match(((await inQuery.json()) as { error: string }).error, /^data: JSON nests/);

      const inForm = await post("/apis/v2/process", {
        method: "PUT",
        body: new URLSearchParams({ code: "filing", userId: "alice", data: asText }).toString(),
        type: "application/x-www-form-urlencoded",
      });
      assert.equal(inForm.status, 400);
      assert.match(((await inForm.json()) as { error: string }).error, LIMIT);
    });

    it("counts brackets inside strings as text, not as nesting", async () => {
      const answer = await post("/apis/v2/process", {
        method: "PUT",
        body: JSON.stringify({
          code: "filing",
          userId: "alice",
          data: { title: `${"[{".repeat(500)}\\"[`, attachment: { name: '"{[', note: "}]".repeat(100) } },
        }),
      });
      assert.equal(answer.status, 200);
      assert.equal(((await answer.json()) as { errno: number }).errno, 0);
    });
  });
}
