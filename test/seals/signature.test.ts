import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { metricSamples } from "../support/metric-samples.ts";
import { makePdf, sealPng } from "../support/pdf-fixtures.ts";
import { startTestPlatform, type TestPlatform, tempDir, testModes } from "../support/platform.ts";
import { decodeQr, drawnSeals, pdfsig } from "../support/sealed-pdf-reader.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { CJK_FONT, missingSystemPackages, POPPLER } from "../support/system-requirements.ts";
import { issueToken } from "../support/tokens.ts";

const SECRET = "seal-app-secret-0123456789abcdefghijklmno";
const UPLOAD_LIMIT = 300_000;
const ADMIN_TOKEN = "seal-admin-token-0123456789abcdefghijklmnop";

/** Three A4 pages: the second turned a quarter (shown landscape), text to find on each. */
const contract = () =>
  makePdf([
    { text: [{ value: "Party A", x: 100, y: 700 }] },
    { rotate: 90, text: [{ value: "甲方盖章", x: 200, y: 300, cjk: true, size: 20 }] },
    { text: [{ value: "Party A", x: 300, y: 200 }] },
  ]);

for (const mode of await testModes()) {
  // The fixtures set Chinese text in the CJK font; poppler reads the sealed PDFs back.
  describe(`sealing PDFs (${mode.name})`, {
    skip: mode.skip || missingSystemPackages(CJK_FONT, POPPLER),
  }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let scratch: Awaited<ReturnType<typeof tempDir>>;
    let token: string;

    const appToken = (id: string, scope: string) =>
      issueToken(platform.url, { id, secret: SECRET }, { grant_type: "client_credentials", scope });

    async function seal(
      fields: Record<string, string>,
      pdf: Uint8Array | undefined,
      options: { code?: string; token?: string } = {},
    ) {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.set(name, value);
      if (pdf) form.set("file", new Blob([pdf], { type: "application/pdf" }), "contract.pdf");
      const query = options.token === "" ? "" : `?access_token=${options.token ?? token}`;
      const response = await fetch(`${platform.url}/v1/signature/${options.code ?? "UNIV-SEAL"}${query}`, {
        method: "POST",
        body: form,
      });
      const bytes = new Uint8Array(await response.arrayBuffer());
      const json = response.headers.get("content-type")?.includes("json")
        ? (JSON.parse(Buffer.from(bytes).toString()) as { errno: number; error: string; total: number })
        : undefined;
      return { status: response.status, type: response.headers.get("content-type"), bytes, json };
    }

    before(async () => {
      scratch = await tempDir("op-seal-");
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const dir = prepared.env.DATA_DIR!;
      await writeFile(join(dir, "seal.png"), sealPng());
      await writeFile(
        join(dir, "bootstrap.json"),
        JSON.stringify({
          tenants: [{ domain: "example.edu", name: "Example University" }],
          applications: [
            {
              id: "seal-app",
              secret: SECRET,
              name: "Contracts",
              type: "enterprise",
              tenant: "example.edu",
              scopes: ["signature"],
            },
            { id: "no-seal-app", secret: SECRET, name: "Other", scopes: ["notifications"] },
          ],
          seals: [
            {
              code: "UNIV-SEAL",
              tenant: "example.edu",
              name: "University seal",
              image: "seal.png",
              width: 100,
              height: 100,
            },
          ],
        }),
      );
      platform = await startTestPlatform({
        ...prepared.env,
        BOOTSTRAP_FILE: join(dir, "bootstrap.json"),
        SIGN_MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT),
        SIGN_TIMEOUT_MS: "4000",
        ADMIN_TOKEN,
        // Read below for the dead and refused sign jobs.
        METRICS_PUBLIC: "true",
      });
      token = await appToken("seal-app", "signature");
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
      await scratch?.remove();
    });

    it("places seals by coordinates on every page, an item with pageNo overriding, where the reader sees them", async () => {
      const locations = [
        { left: 20, top: 30, bottom: 999 },
        { pageNo: 2, x: 50, y: 60, top: 5 },
      ];
      const sealed = await seal(
        { locations: JSON.stringify(locations), keyword: "Party A" },
        await contract(),
      );
      assert.equal(sealed.status, 200, JSON.stringify(sealed.json));
      assert.equal(sealed.type, "application/pdf");
      const seals = await drawnSeals(sealed.bytes);
      assert.deepEqual(
        seals.map((s) => s.page),
        [1, 2, 3],
        "coordinates win over the keyword; one seal per page",
      );
      const near = (actual: number, expected: number) =>
        assert.ok(Math.abs(actual - expected) <= 1, `${actual} ≈ ${expected}`);
      // Pages 1 and 3: upright A4; the seal's left edge 20 pt in, its top edge 30 pt down (top beats bottom).
      for (const s of [seals[0]!, seals[2]!]) {
        assert.deepEqual(s.matrix.slice(0, 4), [1, 0, 0, 1]);
        near(s.matrix[4]!, 20);
        near(s.matrix[5]!, 842 - 30 - 100);
        assert.deepEqual([s.width, s.height], [100, 100]);
      }
      // Page 2 is shown landscape (842 × 595): XY wins, the centre 60 pt up is a corner at (50, 10)
      // on screen, which is user-space (595 − 10, 50), drawn turned a quarter to stand upright.
      const turned = seals[1]!;
      assert.deepEqual(turned.matrix.slice(0, 4), [0, 1, -1, 0]);
      near(turned.matrix[4]!, 585);
      near(turned.matrix[5]!, 50);
    });

    it("measures from the visible part of a cropped page, turned or not", async () => {
      const pdf = await makePdf([{ crop: [50, 60, 400, 500] }, { crop: [50, 60, 400, 500], rotate: 180 }]);
      const sealed = await seal({ locations: JSON.stringify([{ left: 10, bottom: 20 }]) }, pdf);
      assert.equal(sealed.status, 200, JSON.stringify(sealed.json));
      const [upright, upsideDown] = await drawnSeals(sealed.bytes);
      assert.deepEqual(upright!.matrix, [1, 0, 0, 1, 60, 80]);
      // Turned half round, the reader's lower left is the crop box's upper right: (450, 560).
      assert.deepEqual(upsideDown!.matrix, [-1, 0, 0, -1, 440, 540]);
    });

    it("centres the seal on a keyword: by default its last match, ASCII and Chinese", async () => {
      const pdf = await contract();
      const last = await seal({ keyword: "Party A" }, pdf);
      assert.equal(last.status, 200, JSON.stringify(last.json ?? Buffer.from(last.bytes).toString()));
      const [onLast] = await drawnSeals(last.bytes);
      const helvetica = await (await PDFDocument.create()).embedFont(StandardFonts.Helvetica);
      const width = helvetica.widthOfTextAtSize("Party A", 12);
      assert.equal(onLast!.page, 3);
      assert.ok(Math.abs(onLast!.matrix[4]! - (300 + width / 2 - 50)) <= 1, `x ${onLast!.matrix[4]}`);
      assert.ok(Math.abs(onLast!.matrix[5]! - (200 + 6 - 50)) <= 1, `y ${onLast!.matrix[5]}`);

      const first = await seal({ keyword: "Party A", keywordOrder: "1", keywordSeq: "1" }, pdf);
      assert.deepEqual(
        (await drawnSeals(first.bytes)).map((s) => s.page),
        [1],
      );
      const all = await seal({ keyword: "Party A", keywordOrder: "0" }, pdf);
      assert.deepEqual(
        (await drawnSeals(all.bytes)).map((s) => s.page),
        [1, 3],
      );

      const chinese = await seal({ keyword: "盖章" }, pdf);
      assert.equal(chinese.status, 200, JSON.stringify(chinese.json));
      const [onChinese] = await drawnSeals(chinese.bytes);
      assert.equal(onChinese!.page, 2);
      // "盖章" is the 3rd and 4th of four 20 pt ideographs from x 200: its centre is x 260, y 300 + 10,
      // in user space; the turned page draws the seal's corner 50 pt before and below that on screen.
      assert.ok(Math.abs(onChinese!.matrix[4]! - (260 + 50)) <= 1, `x ${onChinese!.matrix[4]}`);
      assert.ok(Math.abs(onChinese!.matrix[5]! - (310 - 50)) <= 1, `y ${onChinese!.matrix[5]}`);
    });

    it("draws a QR code with the source file's address, which serves the original", async () => {
      const pdf = await contract();
      const sealed = await seal(
        {
          locations: JSON.stringify([{ pageNo: 1, x: 10, y: 10 }]),
          qrCodeLocations: JSON.stringify([{ pageNo: 3, right: 20, bottom: 20, width: 120, height: 120 }]),
        },
        pdf,
      );
      assert.equal(sealed.status, 200, JSON.stringify(sealed.json));
      const address = await decodeQr(sealed.bytes, 3, scratch.path);
      assert.match(address ?? "", new RegExp(`^${platform.url}/file/[0-9a-f-]{36}$`));
      const original = await fetch(address!);
      assert.equal(original.status, 200);
      assert.deepEqual(
        new Uint8Array(await original.arrayBuffer()),
        pdf,
        "the QR code leads to the file as uploaded",
      );
      assert.equal(
        await decodeQr(sealed.bytes, 1, scratch.path),
        undefined,
        "no QR code where none was asked",
      );
    });

    it("signs the sealed PDF so that pdfsig validates it and detects a changed byte", async () => {
      const sealed = await seal(
        { locations: JSON.stringify([{ pageNo: 1, left: 10, bottom: 10 }]) },
        await contract(),
      );
      assert.equal(sealed.status, 200, JSON.stringify(sealed.json));
      const report = await pdfsig(sealed.bytes, scratch.path);
      assert.match(report, /Signature Validation: Signature is Valid\./);
      assert.match(report, /Total document signed/);
      const tampered = sealed.bytes.slice();
      tampered[200] = tampered[200]! ^ 0x01;
      assert.doesNotMatch(await pdfsig(tampered, scratch.path), /Signature is Valid\./);
    });

    it("answers spec 000's errors", async () => {
      const pdf = await contract();
      const noToken = await seal({ keyword: "Party A" }, pdf, { token: "" });
      assert.equal(noToken.status, 401);
      assert.deepEqual(noToken.json, { errno: 10007, error: "ACCESS_TOKEN_EXPIRED", total: 0 });
      const wrongScope = await seal({ keyword: "Party A" }, pdf, {
        token: await appToken("no-seal-app", "notifications"),
      });
      assert.equal(wrongScope.status, 403);
      assert.equal(wrongScope.json?.errno, -2);

      const cases: [string, Awaited<ReturnType<typeof seal>>, number, RegExp][] = [
        [
          "unknown seal",
          await seal({ keyword: "Party A" }, pdf, { code: "NO-SUCH-SEAL" }),
          404,
          /no seal NO-SUCH-SEAL/,
        ],
        [
          "not a PDF",
          await seal({ keyword: "x" }, new TextEncoder().encode("hello, not a pdf")),
          500,
          /not a PDF/,
        ],
        ["encrypted", await seal({ keyword: "x" }, await encryptedPdf()), 500, /encrypted/],
        [
          "page out of range",
          await seal({ locations: JSON.stringify([{ pageNo: 9 }]) }, pdf),
          500,
          /pageNo 9 is out of range: the PDF has 3 pages/,
        ],
        [
          "malformed locations",
          await seal({ locations: "[{pageNo: 1" }, pdf),
          400,
          /locations: not valid JSON/,
        ],
        [
          "wrong item",
          await seal({ locations: JSON.stringify([{ pageNo: "one" }]) }, pdf),
          400,
          /locations\[0\]\.pageNo/,
        ],
        [
          "keyword missing",
          await seal({ keyword: "Party Z" }, pdf),
          500,
          /keyword "Party Z" is not in the PDF's text/,
        ],
        ["bad keywordOrder", await seal({ keyword: "Party A", keywordOrder: "3" }, pdf), 400, /keywordOrder/],
        ["no file", await seal({ keyword: "Party A" }, undefined), 400, /file: required/],
        ["neither", await seal({}, pdf), 400, /locations or keyword/],
        [
          "too large",
          await seal({ keyword: "x" }, new Uint8Array(UPLOAD_LIMIT + 1).fill(32)),
          413,
          /larger than 300000 bytes/,
        ],
      ];
      for (const [name, answer, status, message] of cases) {
        assert.equal(answer.status, status, `${name}: ${JSON.stringify(answer.json)}`);
        assert.equal(answer.json?.errno, -2, name);
        assert.equal(answer.json?.total, 0, name);
        assert.match(answer.json?.error ?? "", message, name);
      }
      // A caller's bad document is answered, not left in the dead queue for an operator.
      const metrics = metricSamples(await (await fetch(`${platform.url}/metrics`)).text());
      assert.equal(metrics.get('queue_messages{queue="sign",state="dead"}'), 0);
      assert.ok((metrics.get('jobs_total{queue="sign",outcome="refused"}') ?? 0) >= 4);
    });

    it("refuses a PDF that already carries a signature, which sealing would break", async () => {
      const signed = await seal({ locations: JSON.stringify([{ pageNo: 1 }]) }, await contract());
      assert.equal(signed.status, 200, JSON.stringify(signed.json));
      const again = await seal({ locations: JSON.stringify([{ pageNo: 1 }]) }, signed.bytes);
      assert.equal(again.status, 500);
      assert.deepEqual(again.json, {
        errno: -2,
        error: "the PDF already carries a digital signature; seal the file before it is signed",
        total: 0,
      });
    });

    it("lets operators add a seal through the admin API and withdraw it", async () => {
      const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
      const newSeal = {
        code: "DEAN-SEAL",
        tenant: "example.edu",
        name: "Dean's office",
        width: 60,
        height: 40,
        image: `data:image/png;base64,${sealPng(32).toString("base64")}`,
      };
      const added = await fetch(`${platform.url}/admin/bootstrap`, {
        method: "PUT",
        headers: admin,
        body: JSON.stringify({ seals: [newSeal] }),
      });
      assert.equal(added.status, 200, await added.clone().text());
      const sealed = await seal(
        { locations: JSON.stringify([{ pageNo: 1, left: 0, bottom: 0 }]) },
        await contract(),
        {
          code: "DEAN-SEAL",
        },
      );
      assert.equal(sealed.status, 200, JSON.stringify(sealed.json));
      assert.deepEqual(
        (await drawnSeals(sealed.bytes)).map((s) => [s.width, s.height]),
        [[60, 40]],
      );
      const byPath = await fetch(`${platform.url}/admin/bootstrap`, {
        method: "PUT",
        headers: admin,
        body: JSON.stringify({ seals: [{ ...newSeal, image: "/etc/passwd" }] }),
      });
      assert.equal(byPath.status, 400, "the admin API takes images as data URIs, never server paths");
      const withdrawn = await fetch(`${platform.url}/admin/seals/DEAN-SEAL?tenant=example.edu`, {
        method: "DELETE",
        headers: admin,
      });
      assert.equal(withdrawn.status, 200);
      const gone = await seal({ locations: JSON.stringify([{ pageNo: 1 }]) }, await contract(), {
        code: "DEAN-SEAL",
      });
      assert.equal(gone.status, 404);
    });

    it("answers 503 when no sign worker answers in time", async () => {
      const consumer = platform.running.consumers.find((c) => c.queue === "sign")!;
      await consumer.stop(0);
      const answer = await seal({ keyword: "Party A" }, await contract());
      assert.equal(answer.status, 503);
      assert.equal(answer.json?.errno, -2);
      assert.match(answer.json!.error, /no worker answered on queue sign within 4000 ms/);
    });
  });
}

/** A PDF whose trailer names an encryption dictionary, as an encrypted file's does. */
async function encryptedPdf(): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  document.addPage();
  document.context.trailerInfo.Encrypt = document.context.obj({ Filter: "Standard", V: 1, R: 2, P: -4 });
  return document.save();
}
