import assert from "node:assert/strict";
import ExcelJS from "exceljs";
import { watchEventLoop } from "../support/event-loop-watch.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { issueToken } from "../support/tokens.ts";

const APP = { id: "render-app", secret: "render-app-secret-0123456789abcdefghijk" };
const FIELDS = ["name", "number", "text", "amount", "note"].map((name) => ({ name }));

const rows = (count: number) =>
  Array.from({ length: count }, (_, i) => [`name ${i}`, i, "some text here", i * 2.5, "more"]);

for (const mode of await testModes()) {
  describe(`export rendering off the event loop (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform | undefined;
    let cleanup: (() => Promise<void>) | undefined;
    let token: string;

    const exportXlsx = (body: string) =>
      fetch(`${platform!.url}/export/xlsx?access_token=${token}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform(
        await withBootstrap(prepared.env, {
          applications: [{ ...APP, name: "Reports", scopes: ["notifications"] }],
        }),
      );
      token = await issueToken(platform.url, APP, {
        grant_type: "client_credentials",
        scope: "notifications",
      });
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("writes a spreadsheet of 3,000 rows while the event loop keeps answering", async (t) => {
      // The first export starts the rendering thread; the one measured finds it started.
      const first = await exportXlsx(JSON.stringify({ data: rows(2), fields: FIELDS }));
      assert.equal(first.status, 200, await first.clone().text());
      await first.arrayBuffer();
      const body = JSON.stringify({ data: rows(3000), fields: FIELDS });
      const watch = watchEventLoop();
      const answer = await exportXlsx(body);
      const bytes = await answer.arrayBuffer();
      const report = watch.stop();
      t.diagnostic(
        `the event loop's longest block ${report.longestBlockMs} ms of CPU (longest gap ${Math.round(report.longestGapMs)} ms)`,
      );
      assert.equal(answer.status, 200, Buffer.from(bytes).toString());
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(bytes as never);
      const sheet = workbook.worksheets[0]!;
      assert.deepEqual(
        ["A3000", "B3000", "D3000"].map((address) => sheet.getCell(address).value),
        ["name 2999", 2999, 7497.5],
      );
      assert.ok(
        report.longestBlockMs < 100,
        `the event loop was blocked for ${report.longestBlockMs} ms of CPU (longest gap ${Math.round(report.longestGapMs)} ms)`,
      );
    });
  });
}
