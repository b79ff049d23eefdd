import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { buildDocx } from "../support/docx-fixtures.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { freshVhost } from "../support/rabbit.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { LIBREOFFICE, missingSystemPackages, POPPLER, PYTHON_UNO } from "../support/system-requirements.ts";
import { authorizationCodeToken } from "../support/tokens.ts";
import { type Envelope, WorkflowClient } from "../support/workflow-client.ts";
import {
  otherTenantApplication,
  PORTAL_REDIRECT,
  portalApplication,
  portalUserTokens,
  sysToken,
  WORKFLOW_PASSWORD,
  WORKFLOW_TENANTS,
} from "../support/workflow-fixture.ts";

/**
 * Spec 001 2.9-2.11 over HTTP: a process's data read, changed field by field against its form (a
 * DATABINDING activity, refused once ended) and exported through the export workers into the
 * templates of its version, the PDF read back with poppler's pdftotext.
 */

const run = promisify(execFile);
const ADMIN_TOKEN = "workflow-data-admin-token-0123456789abcdef";
const SECRET = "workflow-data-secret-0123456789abcdefghijk";
const REDIRECT = PORTAL_REDIRECT;
const PASSWORD = WORKFLOW_PASSWORD;
const USER_SCOPES = "start submit process process_edit";
const SYS_SCOPES = "sys_process sys_process_edit";

async function pdfText(bytes: ArrayBuffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "process-pdf-"));
  try {
    await writeFile(join(dir, "in.pdf"), Buffer.from(bytes));
    return (await run("pdftotext", ["-layout", join(dir, "in.pdf"), "-"])).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The initiator's form, then bob's review, then the end. */
const purchase = (templates: unknown[]) => ({
  schema: {
    fields: [
      { name: "title", type: "string" },
      { name: "amount", type: "number" },
      { name: "note", type: "text" },
    ],
  },
  graph: {
    nodes: [
      { kind: "start", code: "apply", name: "Apply" },
      { kind: "task", code: "review", name: "Review", assignees: [{ accounts: ["bob"] }] },
      { kind: "end", code: "done", name: "Done" },
    ],
    edges: [
      { from: "apply", to: "review" },
      { from: "review", to: "done" },
    ],
  },
  exportTemplates: templates,
});

for (const mode of await testModes()) {
  describe(`workflow process data (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    const tokens: Record<string, string> = {};
    let sys: string;
    let otherSys: string;

    const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);
    const call = api.call.bind(api);
    const ok = api.ok.bind(api);

    const exported = (entry: number, format: string, token: string, params: Record<string, string> = {}) =>
      fetch(
        `${platform.url}/apis/v2/process/${entry}/data/${format}?${new URLSearchParams({ access_token: token, ...params })}`,
        { signal: AbortSignal.timeout(60_000) },
      );

    /** Starts a purchase for the token's user with this data; with `submit`, the form goes on to bob's review. */
    async function start(
      token: string,
      data: Record<string, unknown>,
      options: { code?: string; base?: string; submit?: boolean } = {},
    ) {
      const started = await ok<unknown>(
        "PUT",
        "/process",
        token,
        { code: options.code ?? "purchase", data: JSON.stringify(data) },
        options.base,
      );
      const [entry, , , task] = started.entities as [number, number, string, { id: string }];
      if (options.submit) await ok("POST", `/task/${task.id}`, token, {}, options.base);
      return entry;
    }

    async function deploy(code: string, definition: unknown) {
      const answer = await fetch(`${platform.url}/admin/workflows/example.edu/${code}/versions`, {
        method: "PUT",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ definition, online: true, beta: true }),
      });
      assert.equal(answer.status, 200, await answer.text());
    }

    async function upload(bytes: Buffer, name: string): Promise<string> {
      const form = new FormData();
      form.set("file", new Blob([new Uint8Array(bytes)]), name);
      const answer = await fetch(`${platform.url}/file?access_token=${sys}`, { method: "PUT", body: form });
      assert.equal(answer.status, 200, await answer.clone().text());
      return ((await answer.json()) as { entities: { uri: string }[] }).entities[0]!.uri;
    }

    before(async () => {
      const prepared = await mode.prepare();
      // A vhost of its own, so no other suite's export worker takes this platform's exports.
      const vhost = prepared.env.AMQP_URL ? await freshVhost(prepared.env.AMQP_URL) : undefined;
      cleanup = async () => {
        await prepared.cleanup();
        await vhost?.delete();
      };
      const env = await withBootstrap(
        { ...prepared.env, ...(vhost ? { AMQP_URL: vhost.url } : {}) },
        {
          tenants: WORKFLOW_TENANTS,
          applications: [
            portalApplication(SECRET, [...USER_SCOPES.split(" "), ...SYS_SCOPES.split(" ")]),
            {
              id: "reader",
              secret: SECRET,
              name: "Reader",
              type: "enterprise",
              tenant: "example.edu",
              redirectUris: [REDIRECT],
              scopes: ["process"],
            },
            otherTenantApplication(SECRET, SYS_SCOPES.split(" ")),
          ],
          users: ["alice", "bob", "carol", "dan", "erin"].map((account) => ({
            tenant: "example.edu",
            account,
            name: account,
            password: PASSWORD,
          })),
          workflows: [
            {
              tenant: "example.edu",
              code: "purchase",
              name: "Purchase",
              administrators: ["dan"],
              guests: ["erin"],
              versions: [{ definition: purchase([]), online: true, beta: true }],
            },
          ],
        },
      );
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN });
      Object.assign(
        tokens,
        await portalUserTokens(platform.url, SECRET, ["alice", "bob", "carol", "dan", "erin"], USER_SCOPES),
      );
      sys = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES);
      otherSys = await sysToken(platform.url, "other", SECRET, SYS_SCOPES);
      // The templates live in the file service; the version names them.
      const summary = await upload(
        buildDocx([{ paragraph: ["Purchase of ${title} for ${amount} yuan"] }]),
        "summary.docx",
      );
      const letter = await upload(
        buildDocx([{ paragraph: ["Dear committee, please note: ${note}"] }]),
        "letter.docx",
      );
      await deploy(
        "purchase",
        purchase([
          { id: "summary", name: "Summary", uri: summary },
          { id: "letter", name: "Letter", uri: letter },
          { id: "twin-a", name: "Twin", uri: summary },
          { id: "twin-b", name: "Twin", uri: letter },
        ]),
      );
      await deploy("bare", purchase([]));
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("2.9 answers the data as entities[0] to whoever took part, the app's guests and administrators and sys tokens", async () => {
      const entry = await start(tokens.alice!, { title: "Laptop", amount: 900 }, { submit: true });
      for (const token of [tokens.alice!, tokens.bob!, tokens.erin!, tokens.dan!, sys]) {
        const data = await ok("GET", `/process/${entry}/data`, token);
        assert.deepEqual(data.entities, [{ title: "Laptop", amount: 900 }]);
      }
      const reader = await authorizationCodeToken(
        platform.url,
        { id: "reader", secret: SECRET, redirectUri: REDIRECT },
        { account: "alice", password: PASSWORD },
        "process",
      );
      assert.equal((await ok("GET", `/process/${entry}/data`, reader)).entities.length, 1);
      assert.equal(
        (await call("GET", `/process/${entry}/data`, tokens.carol!)).body.ecode,
        "PROCESS_NOT_FOUND",
      );
      assert.equal((await call("GET", `/process/${entry}/data`, otherSys)).body.ecode, "PROCESS_NOT_FOUND");
      const test = await call("GET", `/process/${entry}/data`, sys, {}, "/apis/v2d");
      assert.equal(test.body.ecode, "PROCESS_NOT_FOUND", "formal data is not read through /apis/v2d");
      const testEntry = await start(tokens.alice!, { title: "Test" }, { base: "/apis/v2d" });
      assert.deepEqual((await ok("GET", `/process/${testEntry}/data`, sys, {}, "/apis/v2d")).entities, [
        { title: "Test" },
      ]);
      assert.equal((await call("GET", `/process/${testEntry}/data`, sys)).body.ecode, "PROCESS_NOT_FOUND");
      assert.equal((await call("GET", `/process/not-a-process/data`, sys)).body.ecode, "PROCESS_NOT_FOUND");
    });

    it("2.11 merges fields checked against the form, as a DATABINDING activity, for participants and administrators", async () => {
      const entry = await start(tokens.alice!, { title: "Desk", amount: 300 }, { submit: true });
      const changed = await ok("POST", `/process/${entry}/data`, tokens.alice!, {
        data: JSON.stringify({ amount: 350, note: "with drawers" }),
      });
      assert.deepEqual(changed.entities, [{ title: "Desk", amount: 350, note: "with drawers" }]);
      assert.deepEqual((await ok("GET", `/process/${entry}/data`, tokens.bob!)).entities, changed.entities);
      const activities = await ok<{ description: string; user: string | null }>(
        "GET",
        `/process/${entry}/activities`,
        tokens.alice!,
        { categories: "DATABINDING" },
      );
      assert.equal(activities.total, 1);
      assert.match(activities.entities[0]!.description, /amount, note/);
      assert.equal(activities.entities[0]!.user, "alice");

      // The app's administrator may change it; a guest only read it; nobody else either.
      await ok("POST", `/process/${entry}/data`, tokens.dan!, { data: JSON.stringify({ note: "by dan" }) });
      assert.equal(
        (await call("POST", `/process/${entry}/data`, tokens.erin!, { data: '{"note":"x"}' })).body.ecode,
        "PROCESS_NOT_FOUND",
      );
      assert.equal(
        (await call("POST", `/process/${entry}/data`, tokens.carol!, { data: '{"note":"x"}' })).body.ecode,
        "PROCESS_NOT_FOUND",
      );
      await ok("POST", `/process/${entry}/data`, sys, { data: JSON.stringify({ note: "by the system" }) });
      assert.equal((await ok("GET", `/process/${entry}/data`, sys)).entities[0]!.note, "by the system");
      assert.equal(
        (await call("POST", `/process/${entry}/data`, otherSys, { data: '{"note":"x"}' })).body.ecode,
        "PROCESS_NOT_FOUND",
      );
      assert.equal(
        (await call("POST", `/process/${entry}/data`, sys, { data: '{"note":"x"}' }, "/apis/v2d")).body.ecode,
        "PROCESS_NOT_FOUND",
      );

      for (const [data, pattern] of [
        ['{"amount":"many"}', /data\.amount: a number/],
        ['{"colour":"red"}', /data\.colour: no such field in the form/],
        ["{amount:", /data: not JSON/],
        ["{}", /data: name at least one field/],
        ["[1]", /data: a JSON object/],
      ] as const) {
        const refused = await call("POST", `/process/${entry}/data`, tokens.alice!, { data });
        assert.deepEqual([refused.status, refused.body.ecode], [200, "DATA_INVALID"], data);
        assert.match(refused.body.error, pattern);
      }
      assert.equal(
        (await call("POST", `/process/${entry}/data`, tokens.alice!)).status,
        400,
        "data is required",
      );
      assert.equal(
        (await ok("GET", `/process/${entry}/data`, sys)).entities[0]!.amount,
        350,
        "refusals changed nothing",
      );

      const reader = await authorizationCodeToken(
        platform.url,
        { id: "reader", secret: SECRET, redirectUri: REDIRECT },
        { account: "alice", password: PASSWORD },
        "process",
      );
      assert.equal(
        (await call("POST", `/process/${entry}/data`, reader, { data: '{"note":"x"}' })).status,
        403,
      );

      // Once ended, the data stays as it was.
      const review = (
        await ok<{ tasks: { id: string; status: number }[] }>("GET", `/process/${entry}`, tokens.bob!)
      ).entities[0]!.tasks.find((task) => task.status === 1)!;
      await ok("POST", `/task/${review.id}`, tokens.bob!);
      const ended = await call("POST", `/process/${entry}/data`, tokens.alice!, { data: '{"note":"late"}' });
      assert.equal(ended.body.ecode, "PROCESS_ENDED");
    });

    it("2.10 fills the version's template with the data and streams it; a failure answers non-200 with the Response", {
      skip: missingSystemPackages(LIBREOFFICE, PYTHON_UNO, POPPLER),
    }, async () => {
      const entry = await start(tokens.alice!, { title: "Projector", amount: 1200, note: "for room 101" });
      const pdf = await exported(entry, "pdf", tokens.alice!);
      assert.equal(pdf.status, 200, await pdf.clone().text());
      assert.equal(pdf.headers.get("content-type"), "application/pdf");
      assert.match(pdf.headers.get("content-disposition") ?? "", new RegExp(`${entry}\\.pdf`));
      assert.match(await pdfText(await pdf.arrayBuffer()), /Purchase of Projector for 1200 yuan/);

      for (const docTemplate of ["letter", "Letter"]) {
        const letter = await exported(entry, "pdf", tokens.alice!, { docTemplate });
        assert.equal(letter.status, 200);
        assert.match(await pdfText(await letter.arrayBuffer()), /please note: for room 101/);
      }
      const docx = await exported(entry, "docx", sys);
      assert.equal(docx.status, 200);
      assert.equal(
        docx.headers.get("content-type"),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      );
      const png = await exported(entry, "png", tokens.erin!);
      assert.equal(png.status, 200);
      assert.equal(png.headers.get("content-type"), "image/png");

      for (const [docTemplate, pattern] of [
        ["Twin", /2 templates are named Twin; give the id/],
        ["nothing", /no template nothing/],
      ] as const) {
        const refused = await exported(entry, "pdf", tokens.alice!, { docTemplate });
        assert.equal(refused.status, 404);
        const body = (await refused.json()) as Envelope;
        assert.deepEqual([body.errno, body.ecode], [40409, "TEMPLATE_NOT_FOUND"]);
        assert.match(body.error, pattern);
      }
      const bare = await start(tokens.alice!, { title: "Chair" }, { code: "bare" });
      const none = await exported(bare, "pdf", tokens.alice!);
      assert.equal(none.status, 404);
      assert.equal(((await none.json()) as Envelope).ecode, "TEMPLATE_NOT_FOUND");

      const stranger = await exported(entry, "pdf", tokens.carol!);
      assert.equal(stranger.status, 404);
      assert.equal(((await stranger.json()) as Envelope).ecode, "PROCESS_NOT_FOUND");
      assert.equal((await exported(entry, "pdf", otherSys)).status, 404);
      assert.equal((await exported(entry, "xlsx", tokens.alice!)).status, 400);
      assert.equal((await exported(entry, "pdf", "not-a-token")).status, 401);
    });
  });
}
