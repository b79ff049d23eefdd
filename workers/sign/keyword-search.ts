import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { TextItem } from "pdfjs-dist/types/src/display/api.js";

/** A keyword match in user space: the centre of the matched text on its page. */
export interface TextMatch {
  pageIndex: number;
  x: number;
  y: number;
}

const pdfjsRoot = dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"));
// Predefined CMaps let pdf.js read Chinese text set in fonts that are not embedded.
const CMAP_URL = `${join(pdfjsRoot, "cmaps")}/`;

/**
 * Every place the keyword occurs in the PDF's text, in reading order (page by page, then in
 * content order), matched across text runs. A character's position inside a run is taken as
 * evenly spaced, which is exact for the monospaced CJK glyphs and close for the rest.
 */
export async function findKeyword(pdf: Uint8Array, keyword: string): Promise<TextMatch[]> {
  // pdf.js takes ownership of the buffer it is given, so it gets a copy.
  const document = await getDocument({
    data: new Uint8Array(pdf),
    cMapUrl: CMAP_URL,
    cMapPacked: true,
    isEvalSupported: false,
    disableFontFace: true,
    verbosity: 0,
  }).promise;
  try {
    const matches: TextMatch[] = [];
    for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber++) {
      const page = await document.getPage(pageNumber);
      const content = await page.getTextContent();
      const items = content.items.filter((item): item is TextItem => "str" in item && item.str.length > 0);
      const text = items.map((item) => item.str).join("");
      const owners: { item: TextItem; offset: number }[] = [];
      for (const item of items) for (let i = 0; i < item.str.length; i++) owners.push({ item, offset: i });
      for (let at = text.indexOf(keyword); at >= 0; at = text.indexOf(keyword, at + keyword.length)) {
        const first = characterBox(owners[at]!);
        const last = characterBox(owners[at + keyword.length - 1]!);
        matches.push({
          pageIndex: pageNumber - 1,
          x: (first.left + last.right) / 2,
          y: (first.baseline + last.baseline) / 2 + first.height / 2,
        });
      }
      page.cleanup();
    }
    return matches;
  } finally {
    await document.destroy();
  }
}

function characterBox({ item, offset }: { item: TextItem; offset: number }) {
  const [, , , d, e, f] = item.transform as number[];
  const advance = item.width / item.str.length;
  const height = item.height || Math.abs(d ?? 0);
  return { left: e! + advance * offset, right: e! + advance * (offset + 1), baseline: f!, height };
}
