import { readFile } from "node:fs/promises";
import fontkit from "@pdf-lib/fontkit";
import { degrees, PDFDocument, StandardFonts } from "pdf-lib";
import { PNG } from "pngjs";

/** Debian's fonts-droid-fallback: a TrueType font with the CJK ideographs (.ci/run installs it). */
export const CJK_FONT = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf";

/** A seal image: a red ring on a transparent background. */
export function sealPng(size = 64): Buffer {
  const png = new PNG({ width: size, height: size });
  const centre = (size - 1) / 2;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const distance = Math.hypot(x - centre, y - centre);
      const on = distance <= size / 2 - 1 && distance >= size / 2 - 6;
      const i = (y * size + x) * 4;
      png.data[i] = 220;
      png.data[i + 1] = 0;
      png.data[i + 2] = 0;
      png.data[i + 3] = on ? 255 : 0;
    }
  }
  return PNG.sync.write(png);
}

export interface FixturePage {
  text?: { value: string; x: number; y: number; size?: number; cjk?: boolean }[];
  rotate?: 0 | 90 | 180 | 270;
  size?: [number, number];
  /** The visible part of the page: x, y, width, height. */
  crop?: [number, number, number, number];
}

/** A PDF with the given pages and text; CJK text is set in an embedded subset of the CJK font. */
export async function makePdf(pages: FixturePage[]): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  document.registerFontkit(fontkit);
  const latin = await document.embedFont(StandardFonts.Helvetica);
  const needsCjk = pages.some((page) => page.text?.some((t) => t.cjk));
  const cjk = needsCjk ? await document.embedFont(await readFile(CJK_FONT), { subset: true }) : undefined;
  for (const spec of pages) {
    const page = document.addPage(spec.size ?? [595, 842]);
    if (spec.rotate) page.setRotation(degrees(spec.rotate));
    if (spec.crop) page.setCropBox(...spec.crop);
    for (const text of spec.text ?? []) {
      page.drawText(text.value, {
        x: text.x,
        y: text.y,
        size: text.size ?? 12,
        font: text.cjk ? cjk! : latin,
      });
    }
  }
  return document.save();
}
