import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import ExcelJS from "exceljs";
import {
  freePort,
  startTestPlatform,
  type TestPlatform,
  testModes,
  withBootstrap,
} from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { issueToken } from "../support/tokens.ts";

const SECRET = "export-app-secret-0123456789abcdefghijklm";

async function workbookOf(bytes: ArrayBuffer): Promise<ExcelJS.Worksheet> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as never);
  return workbook.worksheets[0]!;
}

async function templateBytes(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet("Report").getCell("A1").value = "Quarterly report";
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

for (const mode of await testModes()) {
  describe(`export service: spreadsheets (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let token: string;
    let templateHost: Server;
    let templateRequests = 0;
    let hostPort = 0;
    let template: Buffer;
    // Listeners that count connections: one hangs up at once, one only a name of its port is listed for.
    let hangUp: TcpServer;
    let hangUpPort = 0;
    let nameOnly: TcpServer;
    let nameOnlyPort = 0;
    let connections = 0;
    let closedPort = 0;

    const exportXlsx = (query: Record<string, string>, init: RequestInit = {}) =>
      fetch(`${platform.url}/export/xlsx?${new URLSearchParams({ access_token: token, ...query })}`, {
        method: "POST",
        ...init,
      });

    before(async () => {
      template = await templateBytes();
      // A template host: the template, and a redirect to it.
      templateHost = createServer((request, response) => {
        templateRequests++;
        if (request.url === "/moved") response.writeHead(302, { location: "/template.xlsx" }).end();
        else response.writeHead(200, { "content-type": "application/octet-stream" }).end(template);
      });
      await new Promise<void>((resolve) => templateHost.listen(0, "127.0.0.1", resolve));
      hostPort = (templateHost.address() as AddressInfo).port;
      const counting = () =>
        createTcpServer((socket) => {
          connections++;
          socket.destroy();
        });
      hangUp = counting();
      nameOnly = counting();
      for (const server of [hangUp, nameOnly])
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      hangUpPort = (hangUp.address() as AddressInfo).port;
      nameOnlyPort = (nameOnly.address() as AddressInfo).port;
      closedPort = await freePort();
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, {
          applications: [{ id: "export-app", secret: SECRET, name: "Export", scopes: ["notifications"] }],
        })),

        // The stand-ins by address and port; `localhost` on http's port, and by name alone on one more.
        EXPORT_TEMPLATE_HOSTS: [
          "templates.invalid",
          "localhost",
          `127.0.0.1:${hostPort}`,
          `127.0.0.1:${hangUpPort}`,
          `127.0.0.1:${closedPort}`,
          `localhost:${nameOnlyPort}`,
        ].join(","),
        EXPORT_TIME_ZONE: "Asia/Shanghai",
      });
      token = await issueToken(
        platform.url,
        { id: "export-app", secret: SECRET },
        {
          grant_type: "client_credentials",
          scope: "notifications",
        },
      );
    });

    after(async () => {
      await platform?.stop();
      templateHost?.close();
      hangUp?.close();
      nameOnly?.close();
      await cleanup?.();
    });

    it("writes the grid from (row, column) under a title row, merging null cells of a merge column", async () => {
      const data = [
        ["Physics", "Ada", 91],
        [null, "Grace", 88],
        [null, "Alan", null],
        ["Chemistry", "Marie", 95],
      ];
      const fields = [
        { name: "dept", label: "Department", merge: true },
        { name: "name", label: "Name" },
        { name: "score", label: "Score" },
      ];
      const answer = await exportXlsx({
        data: JSON.stringify(data),
        fields: JSON.stringify(fields),
        label: "true",
        row: "1",
        column: "2",
      });
      assert.equal(answer.status, 200, await answer.clone().text());
      assert.equal(
        answer.headers.get("content-type"),
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      );
      const sheet = await workbookOf(await answer.arrayBuffer());
      // Row 1 and column 2, 0-based, is C2.
      assert.deepEqual(
        ["C2", "D2", "E2"].map((address) => sheet.getCell(address).value),
        ["Department", "Name", "Score"],
      );
      assert.deepEqual(
        ["C3", "D3", "E3", "D4", "E4", "D5", "C6", "D6", "E6"].map((address) => sheet.getCell(address).value),
        ["Physics", "Ada", 91, "Grace", 88, "Alan", "Chemistry", "Marie", 95],
      );
      assert.equal(sheet.getCell("C4").master.address, "C3", "nulls below Physics merge with it");
      assert.equal(sheet.getCell("C5").master.address, "C3");
      assert.equal(sheet.getCell("C6").master.address, "C6", "a value starts a new cell");
      assert.equal(sheet.getCell("E5").value, null, "no merge where the field does not ask for it");
      assert.equal(sheet.getCell("E5").master.address, "E5");
    });

    it("writes date and datetime fields as dates from Unix seconds or ISO 8601, in the export's time zone", async () => {
      const answer = await exportXlsx({
        data: JSON.stringify([[1710504000, 1710504000, 1710504000, "2024-03-15T23:30:00Z", "soon"]]),
        fields: JSON.stringify([
          { name: "day", type: "date" },
          { name: "at", type: "datetime" },
          { name: "count" },
          { name: "late", type: "datetime" },
          { name: "someday", type: "date" },
        ]),
      });
      assert.equal(answer.status, 200, await answer.clone().text());
      const sheet = await workbookOf(await answer.arrayBuffer());
      // 1710504000 is 2024-03-15 12:00 UTC, 20:00 in Shanghai; a spreadsheet's dates have no zone.
      const day = sheet.getCell("A1");
      assert.deepEqual([day.value, day.numFmt], [new Date("2024-03-15T20:00:00Z"), "yyyy-mm-dd"]);
      const at = sheet.getCell("B1");
      assert.deepEqual([at.value, at.numFmt], [new Date("2024-03-15T20:00:00Z"), "yyyy-mm-dd hh:mm:ss"]);
      assert.equal(sheet.getCell("C1").value, 1710504000, "a number of an untyped field stays a number");
      assert.deepEqual(sheet.getCell("D1").value, new Date("2024-03-16T07:30:00Z"));
      assert.equal(sheet.getCell("E1").value, "soon");
    });

    it("answers {files: [{uri}]} to Accept: application/json, the document kept in the file service", async () => {
      const answer = await exportXlsx(
        { data: JSON.stringify([["a", 1]]) },
        { headers: { accept: "application/json" } },
      );
      assert.equal(answer.status, 200);
      const { files } = (await answer.json()) as { files: { uri: string }[] };
      assert.equal(files.length, 1);
      assert.match(files[0]!.uri, new RegExp(`^${platform.url}/file/`));
      const stored = await fetch(files[0]!.uri);
      assert.equal((await workbookOf(await stored.arrayBuffer())).getCell("A1").value, "a");
    });

    it("takes large data in a JSON body, and a template from the platform's own file service", async () => {
      const form = new FormData();
      form.set("file", new Blob([template]), "template.xlsx");
      const uploaded = (await (
        await fetch(`${platform.url}/file?access_token=${token}`, { method: "PUT", body: form })
      ).json()) as { entities: { uri: string }[] };
      const rows = Array.from({ length: 2000 }, (_, i) => [`row ${i}`, i]);
      const answer = await exportXlsx(
        {},
        {
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ template: uploaded.entities[0]!.uri, data: rows, row: 2 }),
        },
      );
      assert.equal(answer.status, 200, await answer.clone().text());
      const sheet = await workbookOf(await answer.arrayBuffer());
      assert.equal(sheet.name, "Report");
      assert.equal(sheet.getCell("A1").value, "Quarterly report", "the template's own cells stay");
      assert.equal(sheet.getCell("A3").value, "row 0");
      assert.equal(sheet.getCell("B2002").value, 1999);
    });

    it("fetches templates only from the hosts and ports the operator allows, never following redirects", async () => {
      const allowed = await exportXlsx({
        template: `http://127.0.0.1:${hostPort}/template.xlsx`,
        data: "[[1]]",
        row: "1",
      });
      assert.equal(allowed.status, 200, `${await allowed.clone().text()}`);
      assert.equal((await workbookOf(await allowed.arrayBuffer())).getCell("A1").value, "Quarterly report");
      const fetched = templateRequests;
      for (const uri of [
        "http://169.254.169.254/latest/meta-data",
        // A host allowed on another port than the one asked for.
        `http://localhost:${hostPort}/template.xlsx`,
        `http://127.0.0.1:${hostPort + 2}/template.xlsx`,
      ]) {
        const answer = await exportXlsx({ template: uri, data: "[[1]]" });
        assert.equal(answer.status, 403, uri);
        const envelope = (await answer.json()) as { errno: number; error: string };
        assert.match(envelope.error, /is not among those the export service may fetch from/);
      }
      assert.equal(templateRequests, fetched, "no request left the platform for a host not allowed");
      const moved = await exportXlsx({ template: `http://127.0.0.1:${hostPort}/moved`, data: "[[1]]" });
      assert.equal(moved.status, 500);
      assert.equal(
        ((await moved.json()) as { error: string }).error,
        `template: could not be fetched from 127.0.0.1:${hostPort}`,
      );
      const notUrl = await exportXlsx({ template: "file:///etc/passwd", data: "[[1]]" });
      assert.equal(notUrl.status, 400);
    });

    it("answers alike whether an allowed port is open or closed, and never reaches a name's internal address", async () => {
      const before = connections;
      const errors: string[] = [];
      for (const port of [hangUpPort, closedPort]) {
        const answer = await exportXlsx({
          template: `http://127.0.0.1:${port}/template.xlsx`,
          data: "[[1]]",
        });
        assert.equal(answer.status, 500);
        errors.push(((await answer.json()) as { error: string }).error.replace(String(port), "PORT"));
      }
      assert.deepEqual(errors, Array(2).fill("template: could not be fetched from 127.0.0.1:PORT"));
      assert.equal(connections, before + 1, "the open port was tried");

      // localhost is listed on this port by name, but resolves to the loopback, which is not.
      const named = await exportXlsx({
        template: `http://localhost:${nameOnlyPort}/template.xlsx`,
        data: "[[1]]",
      });
      assert.equal(named.status, 500);
      assert.equal(
        ((await named.json()) as { error: string }).error,
        `template: could not be fetched from localhost:${nameOnlyPort}`,
      );
      assert.equal(connections, before + 1, "nothing connected to the loopback for the name");
    });

    it("answers 400 for malformed parameters and 401 without a token", async () => {
      const notGrid = await exportXlsx({ data: JSON.stringify({ a: 1 }) });
      assert.equal(notGrid.status, 400);
      assert.match(((await notGrid.json()) as { error: string }).error, /^data: /);
      const badJson = await exportXlsx({ data: "[[1," });
      assert.equal(badJson.status, 400);
      const anonymous = await fetch(`${platform.url}/export/xlsx?data=[[1]]`, { method: "POST" });
      assert.equal(anonymous.status, 401);
    });
  });
}
