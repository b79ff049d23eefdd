import assert from "node:assert/strict";
import { watchEventLoop } from "../support/event-loop-watch.ts";
import { flateBombPdf, manyPagesPdf, nestedArraysPdf } from "../support/pdf-bombs.ts";
import { makePdf, sealPng } from "../support/pdf-fixtures.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { drawnSeals } from "../support/sealed-pdf-reader.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { uploadFromThread } from "../support/thread-upload.ts";
import { issueToken } from "../support/tokens.ts";

const APP = { id: "bomb-app", secret: "bomb-app-secret-0123456789abcdefghijklmno" };
const ADMIN_TOKEN = "bomb-admin-token-0123456789abcdefghijklmnop";
const MB = 1024 * 1024;
/** Lower than the default, so a bomb past it is quick to make. */
const MAX_INFLATED_BYTES = 16 * MB;

interface Answer {
  status: number;
  bytes: Uint8Array;
  json: { errno: number; error: string; total: number } | undefined;
}

for (const mode of await testModes()) {
  describe(`hostile PDFs sent to be sealed (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform | undefined;
    let cleanup: (() => Promise<void>) | undefined;
    let token: string;
    // Made before the requests: writing it is the test's work, not the platform's.
    let twoHundredThousandPages: Buffer;

    async function seal(fields: Record<string, string>, pdf: Uint8Array): Promise<Answer> {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.set(name, value);
      form.set("file", new Blob([pdf], { type: "application/pdf" }), "document.pdf");
      const response = await fetch(`${platform!.url}/v1/signature/UNIV-SEAL?access_token=${token}`, {
        method: "POST",
        body: form,
      });
      const bytes = new Uint8Array(await response.arrayBuffer());
      const json = response.headers.get("content-type")?.includes("json")
        ? (JSON.parse(Buffer.from(bytes).toString()) as Answer["json"])
        : undefined;
      return { status: response.status, bytes, json };
    }

    async function deadSignJobs(): Promise<number> {
      const response = await fetch(`${platform!.url}/admin/queues`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const { items } = (await response.json()) as { items: { queue: string; dead: number }[] };
      return items.find((item) => item.queue === "sign")!.dead;
    }

    before(async () => {
      twoHundredThousandPages = manyPagesPdf(200_000);
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, {
          tenants: [{ domain: "example.edu", name: "Example University" }],
          applications: [
            { ...APP, name: "Contracts", type: "enterprise", tenant: "example.edu", scopes: ["signature"] },
          ],
          seals: [
            {
              code: "UNIV-SEAL",
              tenant: "example.edu",
              name: "University seal",
              image: `data:image/png;base64,${sealPng().toString("base64")}`,
              width: 60,
              height: 60,
            },
          ],
        })),
        ADMIN_TOKEN,
        // Room for a first document thread to start on a busy machine.
        SIGN_TIMEOUT_MS: "30000",
        SIGN_MAX_INFLATED_BYTES: String(MAX_INFLATED_BYTES),
      });
      token = await issueToken(platform.url, APP, { grant_type: "client_credentials", scope: "signature" });
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("seals an ordinary PDF, by coordinates and by keyword", async () => {
      const pdf = await makePdf([{ text: [{ value: "Party A", x: 100, y: 700 }] }, {}]);
      const byPlace = await seal({ locations: JSON.stringify([{ x: 10, y: 10 }]) }, pdf);
      assert.equal(byPlace.status, 200, JSON.stringify(byPlace.json));
      assert.deepEqual(
        (await drawnSeals(byPlace.bytes)).map((mark) => mark.page),
        [1, 2],
      );
      const byKeyword = await seal({ keyword: "Party A" }, pdf);
      assert.equal(byKeyword.status, 200, JSON.stringify(byKeyword.json));
      assert.deepEqual(
        (await drawnSeals(byKeyword.bytes)).map((mark) => mark.page),
        [1],
      );
    });

    it("refuses a PDF of 200,000 pages with 400 within seconds, never blocking the event loop or growing 200 MB", async (t) => {
      const pdf = twoHundredThousandPages;
      assert.ok(pdf.byteLength > 20 * MB, `${pdf.byteLength} bytes`);
      const watch = watchEventLoop();
      const started = performance.now();
      let sealing = true;
      const sealed = uploadFromThread(
        `${platform!.url}/v1/signature/UNIV-SEAL?access_token=${token}`,
        { locations: JSON.stringify([{ x: 10, y: 10 }]) },
        pdf,
      ).finally(() => {
        sealing = false;
      });
      // The gateway keeps answering while the document is worked on.
      let healthy = 0;
      while (sealing) {
        const health = await fetch(`${platform!.url}/healthz`);
        assert.equal(health.status, 200);
        await health.arrayBuffer();
        healthy++;
      }
      const answer = await sealed;
      const seconds = (performance.now() - started) / 1000;
      const report = watch.stop();
      const grown = (report.peakRss - report.startRss) / MB;
      t.diagnostic(
        `refused in ${seconds.toFixed(1)} s; the event loop's longest block ${report.longestBlockMs} ms of CPU ` +
          `(longest gap ${Math.round(report.longestGapMs)} ms); memory grew by ${grown.toFixed(0)} MB; ` +
          `/healthz answered ${healthy} times`,
      );
      assert.equal(answer.status, 400, answer.text);
      assert.deepEqual(JSON.parse(answer.text), {
        errno: -2,
        error: "file: the PDF has more than 2000 pages",
        total: 0,
      });
      assert.ok(seconds < 15, `refused after ${seconds.toFixed(1)} s`);
      assert.ok(healthy > 0, "/healthz was answered while the PDF was worked on");
      assert.ok(
        report.longestBlockMs < 100,
        `the event loop was blocked for ${report.longestBlockMs} ms of CPU (longest gap ${Math.round(report.longestGapMs)} ms)`,
      );
      assert.ok(grown < 200, `resident memory grew by ${grown.toFixed(0)} MB`);
    });

    it("refuses a page tree that names one page 200,000 times, or nests past the limit", async () => {
      const shared = await seal(
        { locations: JSON.stringify([{ x: 10, y: 10 }]) },
        manyPagesPdf(200_000, { sharedPage: true, claimedCount: 1 }),
      );
      assert.equal(shared.status, 400, JSON.stringify(shared.json));
      assert.equal(shared.json?.error, "file: the PDF has more than 2000 pages");
      const chain = await seal(
        { locations: JSON.stringify([{ x: 10, y: 10 }]) },
        manyPagesPdf(200, { fanOut: 2 }),
      );
      assert.equal(chain.status, 200, "a tree of 200 pages in pairs is 8 levels deep, within the limit");
    });

    it("refuses streams that inflate a thousandfold past the limit, holding none of their inflated bytes", async (t) => {
      const bombs: { fields: Record<string, string>; pdf: Buffer }[] = [
        { fields: { locations: JSON.stringify([{ x: 10, y: 10 }]) }, pdf: flateBombPdf(64 * MB) },
        { fields: { keyword: "Party A" }, pdf: flateBombPdf(64 * MB, { place: "content", filter: "Fl" }) },
      ];
      const watch = watchEventLoop();
      for (const { fields, pdf } of bombs) {
        assert.ok(pdf.byteLength < 100_000, `${pdf.byteLength} bytes`);
        const answer = await seal(fields, pdf);
        assert.equal(answer.status, 400, JSON.stringify(answer.json));
        assert.equal(
          answer.json?.error,
          `file: the PDF's compressed streams inflate to more than ${MAX_INFLATED_BYTES} bytes`,
        );
      }
      const report = watch.stop();
      const grown = (report.peakRss - report.startRss) / MB;
      t.diagnostic(
        `memory grew by ${grown.toFixed(0)} MB; the event loop's longest block ${report.longestBlockMs} ms`,
      );
      assert.ok(grown < 48, `resident memory grew by ${grown.toFixed(0)} MB: a stream was held inflated`);
      assert.ok(report.longestBlockMs < 100, `the event loop was blocked for ${report.longestBlockMs} ms`);
    });

    it("refuses arrays and dictionaries nested 100,000 deep with 400 and dead-letters nothing", async () => {
      const bombs = [
        nestedArraysPdf(100_000),
        nestedArraysPdf(100_000, { place: "catalog" }),
        nestedArraysPdf(100_000, { dictionaries: true }),
        nestedArraysPdf(101, { xref: "broken" }),
      ];
      for (const [index, pdf] of bombs.entries()) {
        const ways: Record<string, string>[] = [
          { keyword: "Party A" },
          { locations: JSON.stringify([{ x: 10, y: 10 }]) },
        ];
        for (const fields of ways) {
          const answer = await seal(fields, pdf);
          const what = `bomb ${index} by ${Object.keys(fields)[0]}: ${JSON.stringify(answer.json)}`;
          assert.equal(answer.status, 400, what);
          assert.match(
            answer.json!.error,
            /^file: the PDF nests arrays and dictionaries more than 100 levels deep$/,
          );
        }
      }
      assert.equal(await deadSignJobs(), 0, "a refused document is not left for an operator");
      const ordinary = await seal(
        { locations: JSON.stringify([{ x: 10, y: 10 }]) },
        await makePdf([{ text: [{ value: "Party A", x: 100, y: 700 }] }]),
      );
      assert.equal(ordinary.status, 200, "the platform seals on after the refusals");
    });
  });
}
