import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { buildDocx, readDocx } from "../support/docx-fixtures.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { LIBREOFFICE, missingSystemPackages, POPPLER, PYTHON_UNO } from "../support/system-requirements.ts";

/** PDF and PNG exports go through LibreOffice; the tests read their text and pages with poppler. */
const NEEDS_OFFICE = { skip: missingSystemPackages(LIBREOFFICE, PYTHON_UNO, POPPLER) };

import { issueToken } from "../support/tokens.ts";

const run = promisify(execFile);
const SECRET = "document-export-secret-0123456789abcdefgh";

async function pdfText(bytes: ArrayBuffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "pdf-text-"));
  try {
    await writeFile(join(dir, "in.pdf"), Buffer.from(bytes));
    return (await run("pdftotext", ["-layout", join(dir, "in.pdf"), "-"])).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const certificate = buildDocx([
  { paragraph: ["Certificate for ${name}, issued ${issued:yyyy-MM-dd}"] },
  { paragraph: ["${photo}"] },
  {
    table: [
      [["Course"], ["Score"]],
      [["${groupCourses}${title}"], ["${score}"]],
    ],
  },
  { paragraph: ["==${", "honours}=="] },
  { paragraph: ["With honours"] },
  { paragraph: ["==${honours}=="] },
]);

const courses = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ title: `Course ${i + 1} 课程`, score: 60 + (i % 40) }));

for (const mode of await testModes()) {
  describe(`export service: documents (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let token: string;
    let templateUri: string;
    let photoUri: string;

    const upload = async (bytes: Buffer, name: string) => {
      const form = new FormData();
      form.set("file", new Blob([bytes]), name);
      const answer = await fetch(`${platform.url}/file?access_token=${token}`, { method: "PUT", body: form });
      assert.equal(answer.status, 200);
      return ((await answer.json()) as { entities: { uri: string }[] }).entities[0]!.uri;
    };

    const exportAs = (format: string, body: Record<string, unknown>, accept?: string) =>
      fetch(`${platform.url}/export/${format}?access_token=${token}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(accept ? { accept } : {}) },
        body: JSON.stringify(body),
      });

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, {
          applications: [{ id: "docs-app", secret: SECRET, name: "Documents", scopes: ["notifications"] }],
        })),

        EXPORT_TIME_ZONE: "Asia/Shanghai",
      });
      token = await issueToken(
        platform.url,
        { id: "docs-app", secret: SECRET },
        { grant_type: "client_credentials", scope: "notifications" },
      );
      templateUri = await upload(certificate, "certificate.docx");
      const photo = await sharp({ create: { width: 96, height: 48, channels: 3, background: "#2060a0" } })
        .png()
        .toBuffer();
      photoUri = await upload(photo, "photo.png");
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("fills a docx template with fields, a date, a group, a section and an image from the file service", async () => {
      const answer = await exportAs("docx", {
        template: templateUri,
        data: {
          name: "Li Wei",
          issued: "2026-06-30T20:00:00Z",
          photo: { name: "photo.png", uri: photoUri },
          Courses: courses(3),
          honours: false,
        },
      });
      assert.equal(answer.status, 200, await answer.clone().text());
      assert.equal(
        answer.headers.get("content-type"),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      );
      const doc = readDocx(Buffer.from(await answer.arrayBuffer()));
      // 20:00 UTC on June 30th is July 1st in Shanghai.
      assert.equal(doc.paragraphs[0], "Certificate for Li Wei, issued 2026-07-01");
      assert.deepEqual(doc.tables[0]!.slice(1), [
        ["Course 1 课程", "60"],
        ["Course 2 课程", "61"],
        ["Course 3 课程", "62"],
      ]);
      assert.ok(!doc.paragraphs.includes("With honours"));
      const media = Object.keys(doc.zip.files).filter((name) => name.startsWith("word/media/"));
      assert.equal(media.length, 1);
      const picture = await sharp(doc.zip.file(media[0]!)!.asNodeBuffer()).metadata();
      assert.deepEqual([picture.width, picture.height], [96, 48]);
    });

    it("reads a date given as a number as Unix seconds", async () => {
      const answer = await exportAs("docx", {
        template: templateUri,
        data: { name: "Wang Fang", issued: 1710504000, Courses: courses(1) },
      });
      assert.equal(answer.status, 200, await answer.clone().text());
      const doc = readDocx(Buffer.from(await answer.arrayBuffer()));
      // 2024-03-15 12:00 UTC, 20:00 in Shanghai.
      assert.equal(doc.paragraphs[0], "Certificate for Wang Fang, issued 2024-03-15");
    });

    it("converts to PDF through LibreOffice", NEEDS_OFFICE, async () => {
      const answer = await exportAs("pdf", {
        template: templateUri,
        data: { name: "Zhang San 张三", issued: "2026-01-15", Courses: courses(2), honours: true },
      });
      assert.equal(answer.status, 200, await answer.clone().text());
      assert.equal(answer.headers.get("content-type"), "application/pdf");
      const text = await pdfText(await answer.arrayBuffer());
      assert.match(text, /Certificate for Zhang San 张三, issued 2026-01-15/);
      assert.match(text, /Course 2 课程\s+61/);
      assert.match(text, /With honours/);
    });

    it(
      "draws a page as PNG (page 0 by default, `page` 0-based) and refuses a page past the end",
      NEEDS_OFFICE,
      async () => {
        const data = { name: "Long", issued: "2026-01-15", Courses: courses(90) };
        const first = await exportAs("png", { template: templateUri, data });
        assert.equal(first.status, 200, await first.clone().text());
        assert.equal(first.headers.get("content-type"), "image/png");
        const firstPage = Buffer.from(await first.arrayBuffer());
        const page = await sharp(firstPage).metadata();
        // An A4 page at 96 dpi.
        assert.deepEqual([page.format, page.width, page.height], ["png", 794, 1123]);

        const second = await exportAs("png", { template: templateUri, data, page: 1 });
        assert.equal(second.status, 200);
        const secondPage = Buffer.from(await second.arrayBuffer());
        assert.equal((await sharp(secondPage).metadata()).height, 1123);
        assert.ok(!secondPage.equals(firstPage), "page 1 is another page");

        const past = await exportAs("png", { template: templateUri, data, page: 40 });
        assert.equal(past.status, 400);
        const envelope = (await past.json()) as { errno: number; error: string };
        assert.match(envelope.error, /^page: 40 is past the document's last page \(\d pages/);
      },
    );

    it(
      "answers JSON with {files: [{uri, page}]}: every page of an image export, the document otherwise",
      NEEDS_OFFICE,
      async () => {
        const data = { name: "Long", issued: "2026-01-15", Courses: courses(90) };
        const pages = await exportAs("png", { template: templateUri, data }, "application/json");
        assert.equal(pages.status, 200, await pages.clone().text());
        const { files } = (await pages.json()) as { files: { uri: string; page: number }[] };
        assert.ok(files.length >= 2, `a 90-row table runs over pages: ${files.length}`);
        assert.deepEqual(
          files.map((file) => file.page),
          files.map((_, index) => index),
        );
        const stored = await fetch(files[1]!.uri);
        assert.equal(stored.headers.get("content-type"), "image/png");
        assert.equal((await sharp(Buffer.from(await stored.arrayBuffer())).metadata()).width, 794);

        const pdf = await exportAs("pdf", { template: templateUri, data }, "application/json");
        const answer = (await pdf.json()) as { files: { uri: string; page?: number }[] };
        assert.equal(answer.files.length, 1);
        assert.equal(answer.files[0]!.page, undefined);
        assert.match(
          await pdfText(await (await fetch(answer.files[0]!.uri)).arrayBuffer()),
          /Course 90 课程/,
        );
      },
    );

    it("answers 400 for a missing or broken template, 403 for an image on a host not allowed, 404 for an unknown format", async () => {
      const missing = await exportAs("docx", { data: {} });
      assert.equal(missing.status, 400);
      assert.match(((await missing.json()) as { error: string }).error, /^template: required/);

      const notDocx = await exportAs("pdf", { template: photoUri, data: {} });
      assert.equal(notDocx.status, 400);
      assert.match(((await notDocx.json()) as { error: string }).error, /^template: not a \.docx document/);

      const internal = await exportAs("docx", {
        template: templateUri,
        data: { photo: { name: "x", uri: "http://169.254.169.254/latest/meta-data" } },
      });
      assert.equal(internal.status, 403);
      assert.match(
        ((await internal.json()) as { error: string }).error,
        /^image: the host 169.254.169.254 is not among/,
      );

      const unknown = await exportAs("odt", { template: templateUri, data: {} });
      assert.equal(unknown.status, 404);
      const envelope = (await unknown.json()) as { errno: number };
      assert.notEqual(envelope.errno, 0);
    });
  });
}
