import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import jsQRModule from "jsqr";
import { decodePDFRawStream, PDFArray, PDFDocument, PDFName, PDFRawStream, type PDFRef } from "pdf-lib";
import { PNG } from "pngjs";

const run = promisify(execFile);
// jsqr is CommonJS with a default export; under Node ESM it arrives as the module object.
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule }).default ??
  jsQRModule) as unknown as (
  data: Uint8ClampedArray,
  width: number,
  height: number,
) => { data: string } | null;

/** A mark found in a page's content: the transformation it was drawn with and its size. */
export interface DrawnMark {
  page: number;
  /** The frame's matrix [a b c d e f]: e, f is the mark's anchor in user space. */
  matrix: number[];
  width: number;
  height: number;
}

/** The operators of every content stream of a page, decoded, in order. */
async function pageContents(pdf: Uint8Array): Promise<string[]> {
  const document = await PDFDocument.load(pdf);
  return document.getPages().map((page) => {
    const contents = page.node.get(PDFName.of("Contents"));
    const refs = contents instanceof PDFArray ? contents.asArray() : [contents];
    return refs
      .map((ref) => {
        const stream = document.context.lookup(ref as PDFRef);
        return stream instanceof PDFRawStream
          ? Buffer.from(decodePDFRawStream(stream).decode()).toString("latin1")
          : "";
      })
      .join("\n");
  });
}

const NUMBER = "(-?[\\d.]+)";
const SEAL_DRAW = new RegExp(
  `${Array(6).fill(NUMBER).join(" ")} cm\\s+${NUMBER} 0 0 ${NUMBER} 0 0 cm\\s+/Seal[^\\s]* Do`,
  "g",
);

/** Every seal image drawn on the pages, as the sealing service draws it. */
export async function drawnSeals(pdf: Uint8Array): Promise<DrawnMark[]> {
  const pages = await pageContents(pdf);
  return pages.flatMap((content, index) =>
    [...content.matchAll(SEAL_DRAW)].map((m) => ({
      page: index + 1,
      matrix: m.slice(1, 7).map(Number),
      width: Number(m[7]),
      height: Number(m[8]),
    })),
  );
}

/** Renders a page with poppler's pdftoppm and decodes the QR code on it. */
export async function decodeQr(
  pdf: Uint8Array,
  page: number,
  directory: string,
): Promise<string | undefined> {
  const input = join(directory, `qr-${page}.pdf`);
  await writeFile(input, pdf);
  const prefix = join(directory, `qr-${page}`);
  await run("pdftoppm", [
    "-png",
    "-r",
    "100",
    "-singlefile",
    "-f",
    String(page),
    "-l",
    String(page),
    input,
    prefix,
  ]);
  const image = PNG.sync.read(await readFile(`${prefix}.png`));
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

/** What poppler's pdfsig says about the file's signatures. */
export async function pdfsig(pdf: Uint8Array, directory: string): Promise<string> {
  const file = join(directory, "signed.pdf");
  await writeFile(file, pdf);
  const result = await run("pdfsig", [file]).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: `${error.stdout ?? ""}${error.stderr ?? ""}`,
  }));
  return result.stdout;
}
