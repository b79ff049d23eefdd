import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The README and every Markdown file under docs/. */
async function documents(): Promise<string[]> {
  const entries = await readdir(join(ROOT, "docs"), { recursive: true, withFileTypes: true });
  const docs = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => join(entry.parentPath, entry.name));
  return [join(ROOT, "README.md"), ...docs.sort()];
}

/** A document's lines outside fenced code blocks, inline code removed. */
function prose(text: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    else if (!fenced) lines.push(line.replace(/`[^`]*`/g, ""));
  }
  return lines;
}

/** The anchors of a document's headings, made as GitHub makes them (repeats get -1, -2 …). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

describe("the README and docs/", () => {
  it("link only to files that exist and to headings those files have", async () => {
    const broken: string[] = [];
    for (const file of await documents()) {
      const text = await readFile(file, "utf8");
      for (const line of prose(text)) {
        for (const [, target] of line.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
          if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
          const [path, anchor] = target!.split("#", 2) as [string, string | undefined];
          const linked = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
          const where = `${relative(ROOT, file)}: ${target}`;
          if (!existsSync(linked)) broken.push(`${where} (no such file)`);
          else if (anchor !== undefined && linked.endsWith(".md")) {
            if (!anchors(await readFile(linked, "utf8")).has(anchor))
              broken.push(`${where} (no such heading)`);
          }
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it("finds the links it checks", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    assert.ok(anchors(readme).has("a-workflow-end-to-end"));
    assert.ok(anchors("## The user's lists (2.3–2.7, 2.12)").has("the-users-lists-2327-212"));
    assert.ok(
      anchors("## API (`/apis/v2` and `/apis/v2d`, the same directory)").has(
        "api-apisv2-and-apisv2d-the-same-directory",
      ),
    );
    assert.ok(prose(readme).some((line) => line.includes("](docs/")));
  });
});
