import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import ExcelJS from "exceljs";
import PizZip from "pizzip";
import { readDocx } from "../support/docx-fixtures.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { issueToken } from "../support/tokens.ts";
import { bombEntry, deflatedEntry, docxWith, type RawEntry, writeZip } from "../support/zip-bombs.ts";

const SECRET = "template-bombs-secret-0123456789abcdefgh";
const MB = 1_000_000;

const letterXml =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Dear ${name}</w:t></w:r></w:p><w:sectPr/></w:body></w:document>';

async function report(): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  book.addWorksheet("Report").getCell("A1").value = "Quarterly report";
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** The workbook of report() with its first sheet replaced by `sheet`. */
async function reportWith(sheet: RawEntry): Promise<Buffer> {
  const parts = Object.values(new PizZip(await report()).files)
    .filter((file) => !file.dir && file.name !== "xl/worksheets/sheet1.xml")
    .map((file) => deflatedEntry(file.name, file.asNodeBuffer()));
  return writeZip([...parts, sheet]);
}

const TEMPLATES = new Map<string, Buffer>();

for (const mode of await testModes()) {
  describe(`export service: template bombs (${mode.name})`, {
    skip: mode.skip,
  }, () => {
    let platform: TestPlatform | undefined;
    let cleanup: (() => Promise<void>) | undefined;
    let templateHost: Server | undefined;
    let hostUrl = "";
    let token = "";

    const exportAs = (format: string, body: Record<string, unknown>) =>
      fetch(`${platform!.url}/export/${format}?access_token=${token}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    before(async () => {
      TEMPLATES.set("bomb.docx", docxWith(bombEntry("word/document.xml", 400)));
      TEMPLATES.set("liar.docx", docxWith(bombEntry("word/document.xml", 400, 30 * 1024 * 1024)));
      TEMPLATES.set("bomb.xlsx", await reportWith(bombEntry("xl/worksheets/sheet1.xml", 400, 5000)));
      TEMPLATES.set("letter.docx", docxWith(deflatedEntry("word/document.xml", letterXml)));
      TEMPLATES.set("report.xlsx", await report());
      templateHost = createServer((request, response) => {
        const template = TEMPLATES.get(request.url!.slice(1));
        if (template) response.writeHead(200).end(template);
        else response.writeHead(404).end();
      });
      await new Promise<void>((resolve) => templateHost!.listen(0, "127.0.0.1", resolve));
      const hostPort = (templateHost.address() as AddressInfo).port;
      hostUrl = `http://127.0.0.1:${hostPort}`;
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, {
          applications: [{ id: "bombs-app", secret: SECRET, name: "Bombs", scopes: ["notifications"] }],
        })),
        EXPORT_TEMPLATE_HOSTS: new URL(hostUrl).host,
      });
      token = await issueToken(
        platform.url,
        { id: "bombs-app", secret: SECRET },
        { grant_type: "client_credentials", scope: "notifications" },
      );
    });

    after(async () => {
      await platform?.stop();
      templateHost?.closeAllConnections();
      await new Promise((resolve) => (templateHost ? templateHost.close(resolve) : resolve(undefined)));
      await cleanup?.();
    });

    it("refuses the 400 MB document.xml of a 400 KB .docx with a 400 at once, the process small and serving", async () => {
      const template = TEMPLATES.get("bomb.docx")!;
      assert.ok(template.length < 450_000, `the bomb is ${template.length} bytes`);
      for (const name of ["bomb.docx", "liar.docx"]) {
        const start = process.memoryUsage().rss;
        let peak = start;
        const sampler = setInterval(() => {
          peak = Math.max(peak, process.memoryUsage().rss);
        }, 2);
        try {
          const started = performance.now();
          const [answer, health] = await Promise.all([
            exportAs("docx", { template: `${hostUrl}/${name}`, data: { name: "Ada" } }),
            (async () => {
              const asked = performance.now();
              const healthz = await fetch(`${platform!.url}/healthz`);
              return { status: healthz.status, ms: performance.now() - asked };
            })(),
          ]);
          const took = performance.now() - started;
          assert.equal(answer.status, 400, `${name}: ${await answer.clone().text()}`);
          const envelope = (await answer.json()) as { errno: number; error: string };
          assert.equal(envelope.errno, 10001);
          assert.match(envelope.error, /^template: the entry "word\/document\.xml" inflates/);
          assert.match(
            envelope.error,
            name === "bomb.docx" ? /EXPORT_ARCHIVE_MAX_RATIO/ : /its header declares/,
          );
          assert.ok(took < 5000, `${name} answered in ${Math.round(took)} ms`);
          assert.equal(health.status, 200);
          assert.ok(health.ms < 1000, `/healthz answered in ${Math.round(health.ms)} ms during the export`);
        } finally {
          clearInterval(sampler);
        }
        peak = Math.max(peak, process.memoryUsage().rss);
        assert.ok(
          peak - start < 200 * MB,
          `${name}: the process grew by ${Math.round((peak - start) / MB)} MB`,
        );
      }
    });

    it("refuses a spreadsheet template whose sheet inflates past what its header declares", async () => {
      const answer = await exportAs("xlsx", { template: `${hostUrl}/bomb.xlsx`, data: [["a"]] });
      assert.equal(answer.status, 400);
      const envelope = (await answer.json()) as { errno: number; error: string };
      assert.match(
        envelope.error,
        /^template: the entry "xl\/worksheets\/sheet1\.xml" inflates past the 5000 bytes its header declares/,
      );
    });

    it("still fills templates within the limits", async () => {
      const answer = await exportAs("docx", { template: `${hostUrl}/letter.docx`, data: { name: "Ada" } });
      assert.equal(answer.status, 200, await answer.clone().text());
      assert.deepEqual(readDocx(Buffer.from(await answer.arrayBuffer())).paragraphs, ["Dear Ada"]);
      const sheet = await exportAs("xlsx", { template: `${hostUrl}/report.xlsx`, data: [["a", 1]], row: 1 });
      assert.equal(sheet.status, 200, await sheet.clone().text());
      const book = new ExcelJS.Workbook();
      await book.xlsx.load((await sheet.arrayBuffer()) as never);
      const cells = ["A1", "A2", "B2"].map((address) => book.worksheets[0]!.getCell(address).value);
      assert.deepEqual(cells, ["Quarterly report", "a", 1]);
    });
  });
}
