import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { CODE_FOLDERS } from "../support/code-folders.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The store modules, as the README's code layout names them: a table group's statements, one
 * function per statement. Everything else calls them.
 */
const STORE_MODULES: readonly RegExp[] = [
  /^[a-z]+\/(?:[a-z-]+\/)?[^/]+-store\.ts$/,
  /^runtime\/migrations\.ts$/,
  /^runtime\/database\.ts$/,
  /^workflow\/result-writer\.ts$/,
  /^workflow\/inbox-writes\.ts$/,
];

/**
 * A statement of the database client: a tagged template (`sql`…``, `tx`…``, `sql<Row[]>`…``,
 * `deps.sql`…``, `this.sql`…``) or a statement given as text (`sql.unsafe(…)`). A template that is
 * not a statement is not tagged with these names.
 */
const STATEMENT = /(?<![\w$.}])(?:(?:this|deps|this\.deps)\.)?(?:sql|tx)(?:<[^`;]*>)?`|\.unsafe\(/g;

async function codeFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const folder of CODE_FOLDERS) {
    const entries = await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (entry.isFile() && /\.(ts|mts|tsx)$/.test(entry.name))
        files.push(relative(ROOT, join(entry.parentPath, entry.name)).replaceAll("\\", "/"));
    }
  }
  return files.sort();
}

/** Each statement of a file as `file:line`. */
function statementsOf(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(STATEMENT)) {
    const line = text.slice(0, match.index).split("\n").length;
    found.push(`${file}:${line}`);
  }
  return found;
}

const isStore = (file: string) => STORE_MODULES.some((pattern) => pattern.test(file));

describe("SQL placement", () => {
  it("finds tagged statements the way the rule reads them", () => {
    const sample = [
      "await sql`select 1`;",
      "await tx<{ id: string }[]>`select id from t`;",
      "await deps.sql`select 2`;",
      "await this.sql<Row[]>`select 3`;",
      "const text = html`<p>${sql}</p>`;",
      "const name = `${x}sql`;",
      "await this.sql.unsafe(statement, parameters);",
    ].join("\n");
    assert.deepEqual(statementsOf("f.ts", sample), ["f.ts:1", "f.ts:2", "f.ts:3", "f.ts:4", "f.ts:7"]);
  });

  it("runs statements only in store modules", async () => {
    const outside: string[] = [];
    for (const file of await codeFiles()) {
      if (isStore(file)) continue;
      outside.push(...statementsOf(file, await readFile(join(ROOT, file), "utf8")));
    }
    assert.deepEqual(outside, [], `statements outside store modules:\n${outside.join("\n")}`);
  });
});
