import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { type Browser, type BrowserContext, chromium, type Download } from "playwright-core";
import type { FileEntity } from "../../contracts/files.ts";
import { userContentHeaders } from "../../gateway/user-content-headers.ts";
import { makePdf, sealPng } from "../support/pdf-fixtures.ts";
import {
  startTestPlatform,
  type TestPlatform,
  tempDir,
  testModes,
  withBootstrap,
} from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { CHROMIUM, CHROMIUM_PATH, missingSystemPackages } from "../support/system-requirements.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const APP = { id: "content-app", secret: "content-app-secret-0123456789abcdefghijk" };
/** The origin file URLs are handed out on: a name of its own, as production would give it. */
const FILE_ORIGIN = "https://files.example.edu";
const SANDBOX = "sandbox; default-src 'none'";

/** What each document's script does, were it run: marks the page it runs in. */
const SCRIPT = 'window.scriptRan = true; document.title = "script ran";';
/** Uploads a browser would run script from, each with the type the file service reads from it. */
const SCRIPTED = [
  {
    name: "page.xhtml",
    mime: "application/xml",
    body: `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>page</title></head>
<body><p>hello</p><script>${SCRIPT}</script></body></html>`,
  },
  {
    name: "drawing.svg",
    mime: "application/xml",
    body: `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><title>page</title>
<rect width="20" height="20"/><script>${SCRIPT}</script></svg>`,
  },
  {
    name: "page.html",
    mime: "application/octet-stream",
    body: `<!doctype html><html><head><title>page</title></head><body><script>${SCRIPT}</script></body></html>`,
  },
];

const attachmentOf = (name: string) => `attachment; filename="${name}"; filename*=UTF-8''${name}`;

/** The headers that keep content from running in a browser, and how it is to be opened. */
function assertInert(response: Response, disposition: string | RegExp, what: string): void {
  assert.equal(response.headers.get("x-content-type-options"), "nosniff", what);
  assert.equal(response.headers.get("content-security-policy"), SANDBOX, what);
  const given = response.headers.get("content-disposition") ?? "";
  if (typeof disposition === "string") assert.equal(given, disposition, what);
  else assert.match(given, disposition, what);
}

async function upload(
  url: string,
  token: string,
  bytes: Uint8Array | string,
  name: string,
  fields: Record<string, string> = {},
): Promise<FileEntity> {
  const form = new FormData();
  for (const [field, value] of Object.entries(fields)) form.set(field, value);
  form.set("file", new Blob([bytes]), name);
  const response = await fetch(`${url}/file?access_token=${token}`, { method: "PUT", body: form });
  const body = (await response.json()) as { entities: FileEntity[] };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.entities[0]!;
}

const appToken = (url: string, scope: string) =>
  issueToken(url, APP, { grant_type: "client_credentials", scope });

describe("the headers of user content", () => {
  it("shows inline only raster images, PDF and plain text; anything else is an attachment", () => {
    for (const mime of ["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "application/pdf"])
      assert.equal(userContentHeaders(mime)["content-disposition"], "inline", mime);
    assert.equal(userContentHeaders("Text/Plain; charset=utf-8")["content-disposition"], "inline");
    for (const mime of [
      "text/html",
      "application/xhtml+xml",
      "application/xml",
      "text/xml",
      "image/svg+xml",
      "application/octet-stream",
      "application/javascript",
      "",
    ])
      assert.equal(userContentHeaders(mime)["content-disposition"], "attachment", mime);
    assert.equal(
      userContentHeaders("image/png", { attachment: true })["content-disposition"],
      "attachment",
      "an answer meant to be saved",
    );
  });

  it("sandboxes every type and names the file for every client", () => {
    for (const mime of ["image/png", "application/xml"]) {
      const headers = userContentHeaders(mime, { filename: '图 "1"\\x.svg' });
      assert.equal(headers["content-type"], mime);
      assert.equal(headers["x-content-type-options"], "nosniff");
      assert.equal(headers["content-security-policy"], SANDBOX);
      assert.match(
        headers["content-disposition"]!,
        /^(inline|attachment); filename="_ _1__x\.svg"; filename\*=UTF-8''%E5%9B%BE%20%221%22%5Cx\.svg$/,
      );
    }
  });
});

for (const mode of await testModes()) {
  describe(`user content served inert (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let token: string;

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      await writeFile(join(prepared.env.DATA_DIR!, "seal.png"), sealPng());
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, {
          tenants: [{ domain: "example.edu", name: "Example University" }],
          applications: [
            {
              ...APP,
              name: "Content",
              type: "enterprise",
              tenant: "example.edu",
              scopes: ["signature", "notifications"],
            },
          ],
          seals: [
            {
              code: "UNIV-SEAL",
              tenant: "example.edu",
              name: "University seal",
              image: join(prepared.env.DATA_DIR!, "seal.png"),
              width: 60,
              height: 60,
            },
          ],
        })),
        FILE_PUBLIC_URL: FILE_ORIGIN,
        SIGN_SIGNATURE: "none",
      });
      token = await appToken(platform.url, "notifications");
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("serves an upload that could hold script as a sandboxed attachment, nosniff, ranges too", async () => {
      for (const scripted of SCRIPTED) {
        const file = await upload(platform.url, token, scripted.body, scripted.name);
        assert.equal(file.mime, scripted.mime, scripted.name);
        const whole = await fetch(`${platform.url}/file/${file.id}`);
        assert.equal(whole.status, 200);
        assert.equal(whole.headers.get("content-type"), scripted.mime);
        assertInert(whole, attachmentOf(scripted.name), scripted.name);
        assert.equal(await whole.text(), scripted.body);
        const part = await fetch(`${platform.url}/file/${file.id}`, { headers: { range: "bytes=0-9" } });
        assert.equal(part.status, 206);
        assertInert(part, attachmentOf(scripted.name), `${scripted.name}, a range`);
        await part.arrayBuffer();
      }
      // A name with spaces and parentheses: RFC 8187's form, and a plain one for older clients.
      const named = await upload(platform.url, token, SCRIPTED[1]!.body, "my drawing (1).svg");
      const answer = await fetch(`${platform.url}/file/${named.id}`);
      assertInert(
        answer,
        `attachment; filename="my drawing (1).svg"; filename*=UTF-8''my%20drawing%20%281%29.svg`,
        "a name to encode",
      );
      await answer.arrayBuffer();
    });

    it("shows a raster image inline, sandboxed, and its thumbnails the same way", async () => {
      const png = await upload(platform.url, token, sealPng(64), "seal.png", { thumbsizes: "16x16" });
      assert.equal(png.mime, "image/png");
      const shown = await fetch(`${platform.url}/file/${png.id}`);
      assert.equal(shown.headers.get("content-type"), "image/png");
      assertInert(shown, `inline; filename="seal.png"; filename*=UTF-8''seal.png`, "the image");
      await shown.arrayBuffer();
      const thumb = () => fetch(`${platform.url}/file/${png.id}/thumb/16x16`);
      await waitFor(
        async () => {
          const answer = await thumb();
          await answer.arrayBuffer();
          return answer.status === 200;
        },
        10_000,
        "the thumbnail made",
      );
      const answer = await thumb();
      assert.match(answer.headers.get("content-type") ?? "", /^image\/(png|jpeg|webp)$/);
      assertInert(answer, "inline", "the thumbnail");
      await answer.arrayBuffer();
    });

    it("hands out file URLs on FILE_PUBLIC_URL, files the gateway serves and exports read as its own", async () => {
      const workbook = new ExcelJS.Workbook();
      workbook.addWorksheet("Report").getCell("A1").value = "Quarterly report";
      const template = await upload(
        platform.url,
        token,
        new Uint8Array(await workbook.xlsx.writeBuffer()),
        "template.xlsx",
      );
      assert.equal(template.uri, `${FILE_ORIGIN}/file/${template.id}`);
      const meta = await fetch(`${platform.url}/file/${template.id}/meta`);
      assert.equal(((await meta.json()) as { entities: FileEntity[] }).entities[0]!.uri, template.uri);
      // No EXPORT_TEMPLATE_HOSTS: a template on the file origin is read from the platform's storage.
      const exported = await fetch(
        `${platform.url}/export/xlsx?${new URLSearchParams({ access_token: token, template: template.uri, data: '[["a", 1]]', row: "2" })}`,
        { method: "POST", headers: { accept: "application/json" } },
      );
      const body = (await exported.json()) as { files?: { uri: string }[] };
      assert.equal(exported.status, 200, JSON.stringify(body));
      assert.match(body.files![0]!.uri, new RegExp(`^${FILE_ORIGIN}/file/[0-9a-f-]{36}$`));
    });

    it("answers exports and sealed PDFs as sandboxed attachments", async () => {
      const exported = await fetch(
        `${platform.url}/export/xlsx?${new URLSearchParams({ access_token: token, data: '[["a", 1]]' })}`,
        { method: "POST" },
      );
      assert.equal(exported.status, 200);
      assertInert(exported, attachmentOf("export.xlsx"), "the export");
      await exported.arrayBuffer();

      const form = new FormData();
      form.set("locations", JSON.stringify([{ pageNo: 1, x: 100, y: 100 }]));
      form.set("file", new Blob([await makePdf([{}])], { type: "application/pdf" }), "contract.pdf");
      const sealed = await fetch(
        `${platform.url}/v1/signature/UNIV-SEAL?access_token=${await appToken(platform.url, "signature")}`,
        { method: "POST", body: form },
      );
      assert.equal(sealed.status, 200, sealed.ok ? "" : await sealed.clone().text());
      assert.equal(sealed.headers.get("content-type"), "application/pdf");
      assertInert(
        sealed,
        /^attachment; filename="sealed-[0-9a-f-]{36}\.pdf"; filename\*=UTF-8''sealed-/,
        "sealed",
      );
      await sealed.arrayBuffer();
    });
  });
}

describe("uploads opened in a browser at their file URL", {
  skip: missingSystemPackages(CHROMIUM),
}, () => {
  let platform: TestPlatform;
  let removeDir: () => Promise<void>;
  let browser: Browser;
  let context: BrowserContext;
  let token: string;

  /** Opens the address in a new tab: what the browser shows, or the download it started. */
  async function open(url: string) {
    const page = await context.newPage();
    const downloads: Download[] = [];
    page.on("download", (download) => downloads.push(download));
    const response = await page.goto(url).catch((error: Error) => {
      if (!error.message.includes("Download is starting")) throw error;
      return null;
    });
    return { page, response, downloads };
  }

  before(async () => {
    const dir = await tempDir();
    removeDir = dir.remove;
    platform = await startTestPlatform(
      await withBootstrap(
        { DATA_DIR: dir.path },
        { applications: [{ ...APP, name: "Content", scopes: ["notifications"] }] },
      ),
    );
    token = await appToken(platform.url, "notifications");
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    context = await browser.newContext({ acceptDownloads: true });
  });

  after(async () => {
    await browser?.close();
    await platform?.stop();
    await removeDir?.();
  });

  it("runs no script of an XHTML, SVG or HTML upload: the browser saves it under its name", async () => {
    for (const scripted of SCRIPTED) {
      const file = await upload(platform.url, token, scripted.body, scripted.name);
      assert.equal(file.uri, `${platform.url}/file/${file.id}`);
      const { page, response, downloads } = await open(file.uri);
      const ran = await page.evaluate(() => (globalThis as { scriptRan?: boolean }).scriptRan ?? false);
      assert.equal(ran, false, `${scripted.name}: its script ran on ${page.url()}`);
      assert.notEqual(await page.title(), "script ran", scripted.name);
      assert.equal(response, null, `${scripted.name}: shown rather than saved`);
      await waitFor(() => downloads.length === 1, 5000, `${scripted.name} offered as a download`);
      assert.equal(downloads[0]!.suggestedFilename(), scripted.name);
      await page.close();
    }
  });

  it("still shows an image upload in the page", async () => {
    const file = await upload(platform.url, token, sealPng(64), "seal.png");
    const { page, response, downloads } = await open(file.uri);
    assert.equal(response?.status(), 200);
    assert.equal(downloads.length, 0);
    const width = await page
      .locator("img")
      .evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth);
    assert.equal(width, 64);
    await page.close();
  });
});
