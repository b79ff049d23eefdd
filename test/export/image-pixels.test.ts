import assert from "node:assert/strict";
import { describe, it } from "node:test";
import sharp from "sharp";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { checkArchive } from "../../workers/export/archive-limits.ts";
import { loadImages } from "../../workers/export/docx-images.ts";
import { pngDeclaring } from "../support/image-bombs.ts";
import { deflatedEntry, docxWith, storedEntry } from "../support/zip-bombs.ts";

const LIMITS = { maxBytes: 100 * 1024 * 1024, maxRatio: 100, maxEntries: 10_000 };

async function refused(promise: Promise<unknown>, expected: RegExp): Promise<void> {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof PlatformError);
    assert.equal(error.code, ErrorCode.InvalidArgument);
    assert.match(error.message, expected);
    return true;
  });
}

describe("image sizes in exported documents", () => {
  it("refuses an image of the data declaring more than 50 million pixels, before anything decodes it", async () => {
    const source = { kind: "uri" as const, uri: "https://images.example.edu/huge.png" };
    for (const [width, height] of [
      [10_000, 10_000],
      [60_000, 60_000],
    ]) {
      await refused(
        loadImages(new Map([["uri:huge", source]]), async () => pngDeclaring(width!, height!)),
        new RegExp(
          `^data: https://images\\.example\\.edu/huge\\.png is ${width}×${height} pixels, more than 50000000$`,
        ),
      );
    }
    const photo = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#123456" } })
      .webp()
      .toBuffer();
    const loaded = await loadImages(new Map([["uri:photo", source]]), async () => photo);
    assert.equal(loaded.get("uri:photo")?.extension, "png", "a WebP photo is still converted");
  });

  it("refuses a template whose picture declares more than 50 million pixels, for LibreOffice to decode", async () => {
    const bomb = pngDeclaring(16_384, 16_384);
    await refused(
      checkArchive(
        docxWith(deflatedEntry("word/document.xml", "<w:document/>"), [
          storedEntry("word/media/image1.png", bomb),
        ]),
        LIMITS,
      ),
      /^template: the image "word\/media\/image1\.png" is 16384×16384 pixels, more than 50000000$/,
    );
    const picture = await sharp({ create: { width: 800, height: 600, channels: 3, background: "#654321" } })
      .png()
      .toBuffer();
    await checkArchive(
      docxWith(deflatedEntry("word/document.xml", "<w:document/>"), [
        storedEntry("word/media/image1.png", picture),
      ]),
      LIMITS,
    );
  });
});
