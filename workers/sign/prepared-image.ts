import { type PDFDict, PDFDocument, PDFName, PDFRawStream, type PDFRef } from "pdf-lib";

/** An image stream as embedded: its dictionary (without references) and its encoded bytes. */
interface EncodedStream {
  entries: [PDFName, ReturnType<PDFDict["get"]>][];
  contents: Uint8Array;
}

/**
 * A PNG embedded once, ready to copy into any document: decoding a PNG and compressing its pixels
 * again is most of the work of drawing a seal, so a worker does it once per seal version.
 */
export class PreparedImage {
  private constructor(
    private readonly image: EncodedStream,
    private readonly mask: EncodedStream | undefined,
  ) {}

  static async fromPng(png: Uint8Array): Promise<PreparedImage> {
    const scratch = await PDFDocument.create();
    const embedded = await scratch.embedPng(png);
    await embedded.embed();
    const stream = scratch.context.lookup(embedded.ref) as PDFRawStream;
    const maskRef = stream.dict.get(PDFName.of("SMask")) as PDFRef | undefined;
    const mask = maskRef ? encoded(scratch.context.lookup(maskRef) as PDFRawStream) : undefined;
    return new PreparedImage(encoded(stream), mask);
  }

  /** Adds the image (and its transparency mask) to a document; returns its reference. */
  addTo(document: PDFDocument): PDFRef {
    const { context } = document;
    const dict = context.obj({}) as PDFDict;
    for (const [key, value] of this.image.entries) dict.set(key, value!);
    if (this.mask) {
      const maskDict = context.obj({}) as PDFDict;
      for (const [key, value] of this.mask.entries) maskDict.set(key, value!);
      dict.set(PDFName.of("SMask"), context.register(PDFRawStream.of(maskDict, this.mask.contents)));
    }
    return context.register(PDFRawStream.of(dict, this.image.contents));
  }
}

function encoded(stream: PDFRawStream): EncodedStream {
  const entries = stream.dict
    .entries()
    .filter(([key]) => key !== PDFName.of("SMask") && key !== PDFName.of("Length"));
  return { entries, contents: stream.contents };
}
