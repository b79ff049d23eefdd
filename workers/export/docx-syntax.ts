import { createHash } from "node:crypto";
import Docxtemplater from "docxtemplater";
import PizZip from "pizzip";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";

/**
 * Spec 001's word-processing template syntax, compiled by docxtemplater, whose lexer finds
 * placeholders even where the word processor split them across runs:
 * - `${name}` / `${fieldName}`: the datum `name`;
 * - `${name:yyyy-MM-dd}`: a date in a pattern;
 * - `${groupName}` (or a bookmark `groupName`) in a row's first cell: that row down to the table's
 *   last row repeat for each item of the list `name`;
 * - `==${flag}==` … `==${flag}==`: a section shown unless `flag` is false.
 * A template is compiled once and kept (by content) for the renders that follow.
 */

export const FIELD = "open-platform-field";
export type Part = Docxtemplater.DXT.Part & Record<string, unknown>;

export interface CompiledDocx {
  /** Each templated part of the package (body, headers, footers…) as docxtemplater's parts. */
  files: { path: string; contentType: string; parts: Part[] }[];
  fileTypeConfig: unknown;
}

const bookmarkName = (tag: string) => /\bw:name="([^"]*)"/.exec(tag)?.[1];

interface TableFrame {
  cell: number;
  lastRowEnd: number;
  groups: string[];
}

/**
 * Maps spec 001's syntax onto docxtemplater's parts once its lexer has joined split runs. It runs
 * first among the modules (priority), so the loops it makes are paired and expanded to rows and
 * paragraphs by docxtemplater itself.
 */
class TemplateSyntaxModule {
  readonly name = FIELD;
  readonly priority = 1000;

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
      if (part.type !== "placeholder") {
        output.push(part);
        continue;
      }
      if (part.module) {
        // docxtemplater's own tags (`${#list}`, `${@xml}`): not spec 001's syntax, so refused.
        errors.push(`\${${part.raw}} is not a placeholder of the template syntax`);
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
        module: FIELD,
        format: colon < 0 ? undefined : part.value.slice(colon + 1),
      });
    }
    for (const name of openSections) errors.push(`the section ==\${${name}}== opens but never closes`);
    if (errors.length > 0)
      throw new PlatformError(ErrorCode.InvalidArgument, `template: ${errors.join("; ")}`);
    return output;
  }
}

function loopStart(name: string, expandTo: string) {
  return { module: "loop", location: "start", inverted: false, expandTo, value: name };
}

/** A loop's end; `near` (the part it is placed by) gives the position errors would name. */
function loopEnd(name: string, near: Part): Part {
  return {
    type: "placeholder",
    module: "loop",
    location: "end",
    value: name,
    raw: `/${name}`,
    offset: near.offset,
    lIndex: near.lIndex,
    num: near.num,
  } as Part;
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

const compiled = new Map<string, CompiledDocx>();
const COMPILED_TEMPLATES_KEPT = 64;

/** The compiled template, from the cache when the same bytes were compiled before. */
export function compileDocx(template: Buffer): CompiledDocx {
  const key = createHash("sha256").update(template).digest("base64");
  const cached = compiled.get(key);
  if (cached) {
    compiled.delete(key);
    compiled.set(key, cached);
    return cached;
  }
  let zip: PizZip;
  try {
    zip = new PizZip(template);
  } catch {
    throw new PlatformError(ErrorCode.InvalidArgument, "template: not a .docx document (not a zip package)");
  }
  let document: Docxtemplater;
  try {
    document = new Docxtemplater(zip, {
      modules: [new TemplateSyntaxModule() as unknown as Docxtemplater.DXT.Module],
      delimiters: { start: "${", end: "}" },
      paragraphLoop: true,
      errorLogging: false,
      syntax: { allowUnopenedTag: true },
    });
  } catch (error) {
    throw templateError(error);
  }
  const internals = document as unknown as {
    compiled: Record<string, { postparsed: Part[]; contentType: string }>;
    fileTypeConfig: unknown;
  };
  const result: CompiledDocx = {
    files: Object.entries(internals.compiled).map(([path, file]) => ({
      path,
      contentType: file.contentType,
      parts: file.postparsed,
    })),
    fileTypeConfig: internals.fileTypeConfig,
  };
  compiled.set(key, result);
  if (compiled.size > COMPILED_TEMPLATES_KEPT) compiled.delete(compiled.keys().next().value!);
  return result;
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
