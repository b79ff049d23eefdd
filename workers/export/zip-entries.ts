/**
 * The entries of a zip archive as its central directory lists them, read the way the zip parsers
 * the platform uses (pizzip, and JSZip inside exceljs) read them, and refused wherever a parser
 * could be led to read something else: data before or inside the archive's records, local headers
 * that disagree with the directory, entries sharing bytes, ZIP64 records. No entry is inflated here.
 */

/** A refusal of an archive; the message names the entry. */
export class ArchiveRefused extends Error {
  override name = "ArchiveRefused";
}

export interface ZipEntry {
  /** The name the parsers give it (the local header's, its Unicode path field's if it has one). */
  name: string;
  method: number;
  compressedSize: number;
  /** As the directory declares it; the bytes it inflates to are counted, not taken from here. */
  uncompressedSize: number;
  /** Where its compressed bytes start in the archive. */
  dataStart: number;
}

const END_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const END_SIZE = 22;
const CENTRAL_SIZE = 46;
const LOCAL_SIZE = 30;
/** Values that send a parser to ZIP64 records instead. */
const ZIP64_16 = 0xffff;
const ZIP64_32 = 0xffffffff;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_STRONG_ENCRYPTION = 0x0040;
const FLAG_UTF8 = 0x0800;
const FLAG_MASKED_HEADERS = 0x2000;
const UNICODE_PATH_FIELD = 0x7075;
export const STORED = 0;
export const DEFLATED = 8;

/** A name for messages: quoted, and cut short, as it is the sender's text. */
export function quoted(name: string): string {
  return JSON.stringify(name.length > 120 ? `${name.slice(0, 120)}…` : name);
}

function decodeName(bytes: Buffer, utf8: boolean): string {
  return bytes.toString(utf8 ? "utf8" : "latin1");
}

/** The Unicode path extra field (0x7075), which the parsers prefer to the header's name. */
function unicodePath(extra: Buffer): string | undefined {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const size = extra.readUInt16LE(at + 2);
    const end = at + 4 + size;
    if (end > extra.length) return undefined;
    if (id === UNICODE_PATH_FIELD && size >= 5) return extra.subarray(at + 9, end).toString("utf8");
    at = end;
  }
  return undefined;
}

/** Nothing reads a template's entries into files, but a name that would leave its folder is refused all the same. */
function checkName(name: string): void {
  if (name.includes("\0")) throw new ArchiveRefused(`the entry ${quoted(name)} has a NUL in its name`);
  if (/^[\\/]/.test(name) || /^[A-Za-z]:/.test(name))
    throw new ArchiveRefused(`the entry ${quoted(name)} has an absolute path`);
  if (name.split(/[\\/]/).includes(".."))
    throw new ArchiveRefused(`the entry ${quoted(name)} has a name that leaves the package ("..")`);
}

/** The most bytes an end record and its comment take: where to look for one at the end of an entry. */
export const END_RECORD_WINDOW = END_SIZE + 0xffff;

/** Whether `tail` (an entry's last END_RECORD_WINDOW bytes) closes with a zip end record, as an archive does. */
export function endsWithEndRecord(tail: Buffer): boolean {
  const end = tail.lastIndexOf(END_SIGNATURE);
  return (
    end >= 0 && end + END_SIZE <= tail.length && end + END_SIZE + tail.readUInt16LE(end + 20) === tail.length
  );
}

/**
 * Every entry of `zip`, in the order of its central directory; undefined when it has no end record,
 * as then no parser finds an entry in it either. More than `maxEntries` (as the end record counts
 * them) is refused with `tooMany` before any entry is read.
 */
export function zipEntries(
  zip: Buffer,
  maxEntries: number,
  tooMany: () => ArchiveRefused,
): ZipEntry[] | undefined {
  // The parsers take the last end record found anywhere, so this does too.
  const end = zip.lastIndexOf(END_SIGNATURE);
  if (end < 0 || end + END_SIZE > zip.length) return undefined;
  const disk = zip.readUInt16LE(end + 4);
  const directoryDisk = zip.readUInt16LE(end + 6);
  const entriesOnDisk = zip.readUInt16LE(end + 8);
  const count = zip.readUInt16LE(end + 10);
  const directorySize = zip.readUInt32LE(end + 12);
  const directoryStart = zip.readUInt32LE(end + 16);
  if (count === ZIP64_16 || directorySize === ZIP64_32 || directoryStart === ZIP64_32)
    throw new ArchiveRefused("ZIP64 archives are not accepted");
  if (disk !== 0 || directoryDisk !== 0 || entriesOnDisk !== count)
    throw new ArchiveRefused("archives split over several disks are not accepted");
  if (count > maxEntries) throw tooMany();
  // Bytes before the archive or between its parts would shift every offset the parsers read.
  if (directoryStart + directorySize !== end)
    throw new ArchiveRefused("its central directory is not where its end record says");

  const entries: (ZipEntry & { headerStart: number })[] = [];
  let at = directoryStart;
  for (let index = 0; index < count; index++) {
    if (at + CENTRAL_SIZE > end || zip.readUInt32LE(at) !== CENTRAL_SIGNATURE)
      throw new ArchiveRefused(`its central directory ends before its entry ${index + 1} of ${count}`);
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const uncompressedSize = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const entryDisk = zip.readUInt16LE(at + 34);
    const headerStart = zip.readUInt32LE(at + 42);
    const next = at + CENTRAL_SIZE + nameLength + extraLength + commentLength;
    if (next > end) throw new ArchiveRefused(`its central directory ends inside its entry ${index + 1}`);
    const nameBytes = zip.subarray(at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLength);
    const utf8 = (flags & FLAG_UTF8) !== 0;
    const centralExtra = zip.subarray(
      at + CENTRAL_SIZE + nameLength,
      at + CENTRAL_SIZE + nameLength + extraLength,
    );
    const name = unicodePath(centralExtra) ?? decodeName(nameBytes, utf8);
    checkName(decodeName(nameBytes, utf8));
    checkName(name);
    const entry = quoted(name);
    if (flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION | FLAG_MASKED_HEADERS))
      throw new ArchiveRefused(`the entry ${entry} is encrypted`);
    if (method !== STORED && method !== DEFLATED)
      throw new ArchiveRefused(
        `the entry ${entry} is compressed by method ${method}; only stored and deflated entries are read`,
      );
    if (
      compressedSize === ZIP64_32 ||
      uncompressedSize === ZIP64_32 ||
      headerStart === ZIP64_32 ||
      entryDisk === ZIP64_16
    )
      throw new ArchiveRefused(`the entry ${entry} has ZIP64 sizes; ZIP64 archives are not accepted`);
    if (entryDisk !== 0) throw new ArchiveRefused(`the entry ${entry} is on another disk`);
    if (method === STORED && compressedSize !== uncompressedSize)
      throw new ArchiveRefused(`the entry ${entry} is stored, yet its header declares it changes size`);

    if (headerStart + LOCAL_SIZE > directoryStart || zip.readUInt32LE(headerStart) !== LOCAL_SIGNATURE)
      throw new ArchiveRefused(`the entry ${entry} has no local header where the central directory says`);
    const localFlags = zip.readUInt16LE(headerStart + 6);
    const localMethod = zip.readUInt16LE(headerStart + 8);
    const localNameLength = zip.readUInt16LE(headerStart + 26);
    const localExtraLength = zip.readUInt16LE(headerStart + 28);
    const dataStart = headerStart + LOCAL_SIZE + localNameLength + localExtraLength;
    // The parsers take the name from the local header and everything else from the directory: the two must agree.
    const localName = zip.subarray(headerStart + LOCAL_SIZE, headerStart + LOCAL_SIZE + localNameLength);
    if (!localName.equals(nameBytes) || localMethod !== method || (localFlags & FLAG_ENCRYPTED) !== 0)
      throw new ArchiveRefused(
        `the entry ${entry} has a local header that disagrees with the central directory`,
      );
    if (dataStart + compressedSize > directoryStart)
      throw new ArchiveRefused(`the entry ${entry} runs past the end of the entries`);
    entries.push({ name, method, compressedSize, uncompressedSize, dataStart, headerStart });
    at = next;
  }
  if (at !== end) throw new ArchiveRefused("its central directory holds more than its end record counts");

  // Entries sharing compressed bytes are how one kernel of data is made to inflate many times over.
  const byPlace = [...entries].sort((a, b) => a.headerStart - b.headerStart);
  for (let i = 1; i < byPlace.length; i++) {
    const before = byPlace[i - 1]!;
    if (before.dataStart + before.compressedSize > byPlace[i]!.headerStart)
      throw new ArchiveRefused(`the entries ${quoted(before.name)} and ${quoted(byPlace[i]!.name)} overlap`);
  }
  return entries.map(({ headerStart: _, ...entry }) => entry);
}
