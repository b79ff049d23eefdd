import Docxtemplater from "docxtemplater";
import PizZip from "pizzip";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import type { ExportField } from "../../contracts/export.ts";
import { formatDate, toDate } from "./date-pattern.ts";
import { drawingXml, imageKey, imageSourceOf, type PreparedImage } from "./docx-images.ts";

/**
 * Spec 001's word-processing template syntax on docxtemplater, which finds placeholders even
 * where the word processor split them across runs:
 * - `${name}` / `${fieldName}`: the datum `name`;
 * - `${name:yyyy-MM-dd}`: a date in a pattern;
 * - `${groupName}` (or a bookmark `groupName`) in a row's first cell: that row down to the table's
 *   last row repeat for each item of the list `name`;
 * - `==${flag}==` … `==${flag}==`: a section shown unless `flag` is false.
 * The syntax is mapped onto docxtemplater's own loops once its lexer has joined split runs.
 */

const MODULE = "open-platform-export";
type Part = Docxtemplater.DXT.Part & Record<string, unknown>;

export interface DocxRenderInput {
  template: Buffer;
  data: Record<string, unknown>;
  fields: readonly ExportField[];
  images: ReadonlyMap<string, PreparedImage>;
  timeZone: string;
}

/** `fieldName` and `groupName` also find the datum `Name`, as spec 001 writes them either way. */
function lookup(scope: unknown, name: string): unknown {
  if (typeof scope !== "object" || scope === null) return undefined;
  const record = scope as Record<string, unknown>;
  if (Object.hasOwn(record, name)) return record[name];
  for (const prefix of ["field", "group"]) {
    if (name.startsWith(prefix) && name.length > prefix.length) {
      const bare = name.slice(prefix.length);
      if (Object.hasOwn(record, bare)) return record[bare];
    }
  }
  return undefined;
}

function isFalse(value: unknown): boolean {
  return value === false || value === 0 || value === "" || value === "false" || value === "0";
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML cannot hold
const INVALID_XML_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function escapeXml(text: string): string {
  return text
    .replace(INVALID_XML_CHARACTERS, "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;");
}

function textOf(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map(textOf).join(", ");
  const record = value as Record<string, unknown>;
  if (typeof record.name === "string") return record.name;
  return JSON.stringify(value);
}

const bookmarkName = (tag: string) => /\bw:name="([^"]*)"/.exec(tag)?.[1];

interface TableFrame {
  cell: number;
  lastRowEnd: number;
  groups: string[];
}

class ExportSyntaxModule {
  readonly name = MODULE;
  readonly priority = 1000;
  private readonly relationships = new Map<string, Map<string, string>>();
  private pictureId = 100_000;

  constructor(
    private readonly fieldTypes: ReadonlyMap<string, string>,
    private readonly images: ReadonlyMap<string, PreparedImage>,
    private readonly timeZone: string,
  ) {}

  postparse(parsed: Part[], options: { basePart?: Part }): Part[] {
    if (options.basePart) return parsed;
    const output: Part[] = [];
    const tables: TableFrame[] = [];
    const openSections = new Set<string>();
    const errors: string[] = [];
    for (const [index, part] of parsed.entries()) {
      if (part.emptied) continue;
      const table = tables.at(-1);
      if (part.type === "tag") {
        if (part.tag === "w:tbl" && part.position === "start")
          tables.push({ cell: -1, lastRowEnd: -1, groups: [] });
        if (part.tag === "w:tr" && part.position === "start" && table) table.cell = -1;
        if (part.tag === "w:tc" && part.position === "start" && table) table.cell++;
        output.push(part);
        if (part.tag === "w:tr" && part.position === "end" && table) table.lastRowEnd = output.length - 1;
        if (part.tag === "w:tbl" && part.position === "end" && table) {
          tables.pop();
          const ends = table.groups.reverse().map((name) => loopEnd(name, part));
          output.splice(table.lastRowEnd, 0, ...ends);
        }
        if (part.tag === "w:bookmarkStart" && table?.cell === 0) {
          const name = bookmarkName(part.value);
          if (name?.startsWith("group")) {
            table.groups.push(name);
            output.push({ ...part, type: "placeholder", ...loopStart(name, "w:tr") } as Part);
          }
        }
        continue;
      }
      if (part.type !== "placeholder" || part.module) {
        output.push(part);
        continue;
      }
      if (table?.cell === 0 && part.value.startsWith("group") && !part.value.includes(":")) {
        table.groups.push(part.value);
        output.push({ ...part, ...loopStart(part.value, "w:tr") });
        continue;
      }
      const markerBefore = sectionMarker(output, output.length - 1, -1);
      const markerAfter = markerBefore && sectionMarker(parsed, index + 1, 1);
      if (markerBefore && markerAfter) {
        for (const emptied of markerBefore()) output.splice(output.lastIndexOf(emptied), 1);
        markerAfter();
        const name = part.value;
        const closing = openSections.delete(name);
        if (!closing) openSections.add(name);
        output.push(
          closing
            ? { ...part, ...loopEnd(name, part) }
            : { ...part, ...loopStart(name, "auto"), section: true },
        );
        continue;
      }
      const colon = part.value.indexOf(":");
      const name = colon < 0 ? part.value.trim() : part.value.slice(0, colon).trim();
      output.push({
        ...part,
        value: name,
        module: MODULE,
        format: colon < 0 ? undefined : part.value.slice(colon + 1),
        fieldType: this.fieldTypes.get(name) ?? this.fieldTypes.get(name.replace(/^field(?=.)/, "")),
      });
    }
    for (const name of openSections) errors.push(`the section ==\${${name}}== opens but never closes`);
    if (errors.length > 0)
      throw new PlatformError(ErrorCode.InvalidArgument, `template: ${errors.join("; ")}`);
    return output;
  }

  render(part: Part, options: Docxtemplater.DXT.RenderOptions): Docxtemplater.DXT.Rendered | null {
    if (part.module !== MODULE) return null;
    const value = options.scopeManager.getValue(part.value, { part });
    const fieldType = part.fieldType as string | undefined;
    const source = imageSourceOf(value, fieldType);
    if (source) {
      const image = this.images.get(imageKey(source));
      if (image) {
        const drawing = drawingXml(
          image,
          this.relationshipFor(options.filePath, imageKey(source)),
          this.pictureId++,
        );
        return {
          value: `</w:t></w:r><w:r>${drawing}</w:r><w:r><w:t xml:space="preserve">`,
          errors: [],
        };
      }
    }
    const format = part.format as string | undefined;
    const date = format ? toDate(value, this.timeZone) : undefined;
    const text = date ? formatDate(date, format!, this.timeZone) : textOf(value);
    return {
      value: escapeXml(text).replaceAll("\n", '</w:t><w:br/><w:t xml:space="preserve">'),
      errors: [],
    };
  }

  /** The relationship id, in the rendered part's relationships, of an image it shows. */
  private relationshipFor(filePath: string, key: string): string {
    let byImage = this.relationships.get(filePath);
    if (!byImage) {
      byImage = new Map();
      this.relationships.set(filePath, byImage);
    }
    let id = byImage.get(key);
    if (!id) {
      id = `rIdExportImage${byImage.size + 1}`;
      byImage.set(key, id);
    }
    return id;
  }

  /** Adds the shown images to the package: media parts, relationships, content types. */
  writeMedia(zip: PizZip): void {
    if (this.relationships.size === 0) return;
    const mediaNames = new Map<string, string>();
    let index = 0;
    for (const [filePath, byImage] of this.relationships) {
      const slash = filePath.lastIndexOf("/");
      const relsPath = `${filePath.slice(0, slash)}/_rels/${filePath.slice(slash + 1)}.rels`;
      let rels =
        zip.file(relsPath)?.asText() ??
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
      let added = "";
      for (const [key, id] of byImage) {
        const image = this.images.get(key)!;
        let mediaName = mediaNames.get(key);
        if (!mediaName) {
          mediaName = `export-image-${++index}.${image.extension}`;
          mediaNames.set(key, mediaName);
          zip.file(`word/media/${mediaName}`, image.bytes);
        }
        const target = filePath.startsWith("word/") ? `media/${mediaName}` : `/word/media/${mediaName}`;
        added += `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="${target}"/>`;
      }
      rels = rels.replace("</Relationships>", `${added}</Relationships>`);
      zip.file(relsPath, rels);
    }
    const contentTypes = zip.file("[Content_Types].xml")!.asText();
    let defaults = "";
    for (const [extension, type] of [
      ["png", "image/png"],
      ["jpeg", "image/jpeg"],
    ]) {
      if (!new RegExp(`Extension="${extension}"`, "i").test(contentTypes)) {
        defaults += `<Default Extension="${extension}" ContentType="${type}"/>`;
      }
    }
    if (defaults) zip.file("[Content_Types].xml", contentTypes.replace("</Types>", `${defaults}</Types>`));
  }
}

function loopStart(name: string, expandTo: string) {
  return { module: "loop", location: "start", inverted: false, expandTo, value: name };
}

function loopEnd(name: string, near: Part): Part {
  return { ...near, type: "placeholder", module: "loop", location: "end", value: name } as Part;
}

/**
 * Finds the `==` right before (step -1) or after (step 1) a placeholder, where it may be split
 * across runs, inside the paragraph. The answer removes it (and tells which parts it emptied), so
 * a section is only taken once both of its markers are found.
 */
function sectionMarker(parts: Part[], from: number, step: 1 | -1): (() => Part[]) | undefined {
  const touched: { part: Part; take: number }[] = [];
  let needed = 2;
  for (let i = from; i >= 0 && i < parts.length && needed > 0; i += step) {
    const part = parts[i]!;
    if (part.type === "tag" && part.tag === "w:p") return undefined;
    if (part.type === "placeholder") return undefined;
    if (part.type !== "content" || part.position !== "insidetag") continue;
    const text = part.value;
    const take = Math.min(needed, text.length);
    const piece = step === -1 ? text.slice(text.length - take) : text.slice(0, take);
    if (piece !== "=".repeat(take)) return undefined;
    touched.push({ part, take });
    needed -= take;
  }
  if (needed > 0) return undefined;
  return () => {
    const emptied: Part[] = [];
    for (const { part, take } of touched) {
      part.value = step === -1 ? part.value.slice(0, part.value.length - take) : part.value.slice(take);
      // Emptied text is dropped, so a marker alone in its paragraph takes the paragraph with it.
      if (part.value === "") {
        part.emptied = true;
        emptied.push(part);
      }
    }
    return emptied;
  };
}

/** Fills a .docx template with the data; the answer is the document's bytes. */
export function renderDocx(input: DocxRenderInput): Buffer {
  let zip: PizZip;
  try {
    zip = new PizZip(input.template);
  } catch {
    throw new PlatformError(ErrorCode.InvalidArgument, "template: not a .docx document (not a zip package)");
  }
  const fieldTypes = new Map(input.fields.flatMap((field) => (field.type ? [[field.name, field.type]] : [])));
  const syntax = new ExportSyntaxModule(fieldTypes, input.images, input.timeZone);
  let document: Docxtemplater;
  try {
    document = new Docxtemplater(zip, {
      modules: [syntax as unknown as Docxtemplater.DXT.Module],
      delimiters: { start: "${", end: "}" },
      paragraphLoop: true,
      errorLogging: false,
      syntax: { allowUnopenedTag: true },
      parser: (tag) => ({
        get: (scope: unknown, context: Docxtemplater.DXT.ParserContext) => {
          const value = lookup(scope, tag.trim());
          if (value === undefined || value === null) return undefined;
          return (context.meta.part as Part).section ? !isFalse(value) : value;
        },
      }),
      nullGetter: (part) => ((part as Part).section ? true : part.module === "loop" ? [] : undefined),
    });
    document.render(input.data);
  } catch (error) {
    throw templateError(error);
  }
  syntax.writeMedia(zip);
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE", compressionOptions: { level: 1 } });
}

function templateError(error: unknown): Error {
  if (error instanceof PlatformError) return error;
  const properties = (error as { properties?: { errors?: { properties?: { explanation?: string } }[] } })
    .properties;
  const explanations = (properties?.errors ?? [])
    .map((each) => each.properties?.explanation)
    .filter((each): each is string => typeof each === "string");
  const message = explanations.length > 0 ? explanations.slice(0, 5).join("; ") : (error as Error).message;
  return new PlatformError(ErrorCode.InvalidArgument, `template: ${message}`);
}
