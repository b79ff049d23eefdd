import type { XlsxExport } from "../../contracts/export.ts";
import type { PreparedImage } from "./docx-images.ts";
import { renderDocx } from "./docx-template.ts";
import { pageCount } from "./pdf-pages.ts";
import { renderXlsx } from "./xlsx-export.ts";

/**
 * Exports' rendering as a document thread runs it (see ../document-thread.ts): templates, data
 * and images in, the document's bytes out. Fetching, converting and storing stay with the caller.
 */
export type RenderWork =
  | {
      kind: "docx";
      template: Uint8Array;
      data: Record<string, unknown>;
      fieldTypes: Map<string, string>;
      images: Map<string, PreparedImage>;
      timeZone: string;
    }
  | { kind: "xlsx"; request: XlsxExport; template: Uint8Array | undefined; timeZone: string }
  | { kind: "pages"; pdf: Uint8Array };

/** What each kind answers: the document's bytes, or the PDF's page count. */
export type Rendered<Kind extends RenderWork["kind"]> = Kind extends "pages" ? number : Uint8Array;

/** Bytes arrive as plain byte arrays; the renderers read them as Buffers (a view, not a copy). */
function buffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export async function work(input: RenderWork): Promise<Uint8Array | number> {
  switch (input.kind) {
    case "docx": {
      const images = new Map(
        [...input.images].map(([key, image]) => [key, { ...image, bytes: buffer(image.bytes) }]),
      );
      return renderDocx({ ...input, template: buffer(input.template), images });
    }
    case "xlsx":
      return renderXlsx(input.request, input.template && buffer(input.template), input.timeZone);
    case "pages":
      return pageCount(input.pdf);
  }
}
