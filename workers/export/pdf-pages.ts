import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { PDFDocument } from "pdf-lib";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";

const run = promisify(execFile);

export async function pageCount(pdf: Uint8Array): Promise<number> {
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  return document.getPageCount();
}

/**
 * Pages of a PDF as PNG files (poppler's `pdftoppm`, 96 dpi), written under `dir`; the answer
 * is each file with its 0-based page, in page order.
 */
export async function renderPages(
  pdfPath: string,
  dir: string,
  firstPage: number,
  lastPage: number,
): Promise<{ page: number; path: string }[]> {
  const prefix = join(dir, "page");
  try {
    await run("pdftoppm", [
      "-png",
      "-r",
      "96",
      "-f",
      String(firstPage + 1),
      "-l",
      String(lastPage + 1),
      pdfPath,
      prefix,
    ]);
  } catch (error) {
    throw new PlatformError(
      ErrorCode.Unprocessable,
      `the pages could not be drawn: ${(error as Error).message}`,
    );
  }
  // pdftoppm names pages page-1.png, or page-01.png and so on when the document has more.
  const files = (await readdir(dir)).filter((name) => /^page-\d+\.png$/.test(name));
  return files
    .map((name) => ({ page: Number(/\d+/.exec(name)![0]) - 1, path: join(dir, name) }))
    .sort((a, b) => a.page - b.page);
}
