import { constants, crc32, deflateRawSync } from "node:zlib";
import PizZip from "pizzip";
import { buildDocx } from "./docx-fixtures.ts";

/**
 * Zip archives written byte by byte, so a test can make them lie: sizes, names and methods that
 * disagree between headers, entries that share bytes, deflate streams inflating to hundreds of
 * megabytes built from a few kilobytes, without the test ever holding what they inflate to.
 */

export interface RawEntry {
  name: string;
  /** The bytes as stored in the archive (deflated when `method` is 8). */
  data: Buffer;
  method: number;
  /** The inflated size the headers declare. */
  declaredSize: number;
  crc?: number;
  flags?: number;
  /** The local header's name and method, when they are to disagree with the central directory. */
  localName?: string;
  localMethod?: number;
  /** No local header of its own: the central directory points here instead (entries sharing bytes). */
  headerAt?: number;
}

export interface ZipOptions {
  /** Bytes before the archive. */
  prefix?: Buffer;
  /** Values written into the end record instead of the true ones. */
  endRecord?: Partial<{ count: number; directorySize: number; directoryStart: number }>;
}

const MiB = 1024 * 1024;

export function storedEntry(name: string, content: Buffer | string): RawEntry {
  const data = Buffer.from(content);
  return { name, data, method: 0, declaredSize: data.length, crc: crc32(data) };
}

export function deflatedEntry(name: string, content: Buffer | string): RawEntry {
  const bytes = Buffer.from(content);
  return { name, data: deflateRawSync(bytes), method: 8, declaredSize: bytes.length, crc: crc32(bytes) };
}

/** A deflate stream of `count` copies of `piece`, made by repeating one fully flushed block of it. */
function repeatedDeflate(piece: Buffer, count: number): Buffer {
  // A full flush leaves the stream byte-aligned with nothing referring back, so copies may follow it.
  const block = deflateRawSync(piece, { finishFlush: constants.Z_FULL_FLUSH, level: 9 });
  return Buffer.concat([...Array.from({ length: count }, () => block), Buffer.from([0x03, 0x00])]);
}

/**
 * `word/document.xml` (or any name) inflating to `mebibytes` MiB (fractions too) of an XML document
 * whose body is spaces: about 1 KB per MiB. `declaredSize` lies about it when given.
 */
export function bombEntry(name: string, mebibytes: number, declaredSize?: number): RawEntry {
  const open = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>',
  );
  const close = Buffer.from("</w:t></w:r></w:p></w:body></w:document>");
  const pieces = Math.ceil(mebibytes);
  const fill = Buffer.alloc(Math.round((mebibytes * MiB) / pieces), " ");
  const data = Buffer.concat([
    deflateRawSync(open, { finishFlush: constants.Z_FULL_FLUSH }),
    repeatedDeflate(fill, pieces).subarray(0, -2),
    deflateRawSync(close),
  ]);
  const size = open.length + pieces * fill.length + close.length;
  return { name, data, method: 8, declaredSize: declaredSize ?? size };
}

/** The archive of `entries`, written as they say, lies included. */
export function writeZip(entries: readonly RawEntry[], options: ZipOptions = {}): Buffer {
  const prefix = options.prefix ?? Buffer.alloc(0);
  const parts: Buffer[] = [prefix];
  let offset = prefix.length;
  const headerAt: number[] = [];
  entries.forEach((entry, index) => {
    if (entry.headerAt !== undefined) {
      headerAt[index] = prefix.length + entry.headerAt;
      return;
    }
    const name = Buffer.from(entry.localName ?? entry.name);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE((entry.flags ?? 0) | 0x0800, 6);
    header.writeUInt16LE(entry.localMethod ?? entry.method, 8);
    header.writeUInt32LE(entry.crc ?? 0, 14);
    header.writeUInt32LE(entry.data.length, 18);
    header.writeUInt32LE(entry.declaredSize, 22);
    header.writeUInt16LE(name.length, 26);
    headerAt[index] = offset;
    parts.push(header, name, entry.data);
    offset += header.length + name.length + entry.data.length;
  });
  const directoryStart = offset;
  entries.forEach((entry, index) => {
    const name = Buffer.from(entry.name);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE((entry.flags ?? 0) | 0x0800, 8);
    header.writeUInt16LE(entry.method, 10);
    header.writeUInt32LE(entry.crc ?? 0, 16);
    header.writeUInt32LE(entry.data.length, 20);
    header.writeUInt32LE(entry.declaredSize, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(headerAt[index]! - prefix.length, 42);
    parts.push(header, name);
    offset += header.length + name.length;
  });
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(options.endRecord?.count ?? entries.length, 8);
  end.writeUInt16LE(options.endRecord?.count ?? entries.length, 10);
  end.writeUInt32LE(options.endRecord?.directorySize ?? offset - directoryStart, 12);
  end.writeUInt32LE(options.endRecord?.directoryStart ?? directoryStart - prefix.length, 16);
  parts.push(end);
  return Buffer.concat(parts);
}

/** The entries of a real document (`${name}` in its body), to wrap around or replace with a bomb. */
export function documentEntries(): RawEntry[] {
  const zip = new PizZip(buildDocx([{ paragraph: ["Dear ${name}"] }]));
  return Object.values(zip.files).map((file) => deflatedEntry(file.name, file.asNodeBuffer()));
}

/** A .docx whose `word/document.xml` is `body` (a bomb), its other parts as a real document has them. */
export function docxWith(body: RawEntry, extra: readonly RawEntry[] = []): Buffer {
  return writeZip([
    ...documentEntries().filter((entry) => entry.name !== "word/document.xml"),
    body,
    ...extra,
  ]);
}
