import assert from "node:assert/strict";
import ExcelJS from "exceljs";
import PizZip from "pizzip";
import { buildDocx } from "../support/docx-fixtures.ts";
import { sealPng } from "../support/pdf-fixtures.ts";
import { distributedSetup, PlatformProcess } from "../support/platform-processes.ts";
import { realServices } from "../support/services.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { issueToken } from "../support/tokens.ts";

const SECRET = "split-export-secret-0123456789abcdefghijk";
const services = await realServices();

async function workbookTemplate(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet("Report").getCell("A1").value = "Quarterly report";
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/**
 * The gateway and the workers as operators run them apart (`npm run gateway`, `npm run worker --
 * --all`), the worker with no PUBLIC_URL of its own: a template or an image on the platform's file
 * service is the platform's own, whichever process renders the export.
 */
describe("exports with the gateway and the workers in separate processes", {
  skip: services ? false : "Postgres or RabbitMQ unreachable",
}, () => {
  let setup: Awaited<ReturnType<typeof distributedSetup>> | undefined;
  const started: PlatformProcess[] = [];
  let gateway: PlatformProcess;
  let token: string;

  const upload = async (bytes: Buffer, name: string): Promise<string> => {
    const form = new FormData();
    form.set("file", new Blob([new Uint8Array(bytes)]), name);
    const answer = await fetch(`${gateway.url}/file?access_token=${token}`, { method: "PUT", body: form });
    assert.equal(answer.status, 200, await answer.clone().text());
    return ((await answer.json()) as { entities: { uri: string }[] }).entities[0]!.uri;
  };
  const exportAs = (format: string, parameters: unknown) =>
    fetch(`${gateway.url}/export/${format}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(parameters),
      signal: AbortSignal.timeout(60_000),
    });

  before(async () => {
    setup = await distributedSetup({
      applications: [{ id: "exporter", secret: SECRET, name: "Exporter", scopes: ["notifications"] }],
    });
    gateway = await PlatformProcess.gateway(setup.env);
    started.push(gateway);
    started.push(await PlatformProcess.worker(setup.env, ["--all"]));
    token = await issueToken(
      gateway.url,
      { id: "exporter", secret: SECRET },
      { grant_type: "client_credentials", scope: "notifications" },
    );
  });

  after(async () => {
    await Promise.all(started.map((running) => running.stop()));
    await setup?.cleanup();
  });

  it("fills a spreadsheet template kept in the platform's file service", async () => {
    const template = await upload(await workbookTemplate(), "report.xlsx");
    assert.ok(template.startsWith(`${gateway.url}/file/`), template);
    const answer = await exportAs("xlsx", { template, data: [["row 0", 1]], row: 2 });
    assert.equal(answer.status, 200, await answer.clone().text());
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await answer.arrayBuffer()) as never);
    const sheet = workbook.worksheets[0]!;
    assert.equal(sheet.getCell("A1").value, "Quarterly report");
    assert.equal(sheet.getCell("A3").value, "row 0");
  });

  it("fills a document template with an image, both kept in the platform's file service", async () => {
    const template = await upload(
      buildDocx([{ paragraph: ["${name}"] }, { paragraph: ["${photo}"] }]),
      "t.docx",
    );
    const photo = await upload(sealPng(), "photo.png");
    const answer = await exportAs("docx", {
      template,
      data: { name: "Ada", photo },
      fields: [{ name: "photo", type: "image" }],
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    const document = new PizZip(Buffer.from(await answer.arrayBuffer()));
    assert.match(document.file("word/document.xml")!.asText(), /Ada/);
    assert.ok(
      Object.keys(document.files).some((name) => name.startsWith("word/media/")),
      "the image is in the document",
    );
  });
});
