import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ConfigError, ENVIRONMENT_VARIABLES, loadConfig } from "../../runtime/config.ts";
import { CODE_FOLDERS } from "../support/code-folders.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail("expected a configuration error");
}

/** Variables named literally in the platform's code: `process.env.NAME`, `env["NAME"]`. */
async function variablesNamedInCode(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const folder of CODE_FOLDERS) {
    const entries = await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const text = await readFile(join(entry.parentPath, entry.name), "utf8");
      for (const match of text.matchAll(
        /\benv(?:\.([A-Z][A-Z0-9_]+)\b|\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\])/g,
      ))
        names.add(match[1] ?? match[2]!);
    }
  }
  return names;
}

/** Variables in the first column of the tables of docs/configuration.md. */
async function variablesInConfigurationDoc(): Promise<Set<string>> {
  const doc = await readFile(join(ROOT, "docs", "configuration.md"), "utf8");
  const names = new Set<string>();
  for (const line of doc.split("\n")) {
    const firstCell = /^\|([^|]+)\|/.exec(line)?.[1] ?? "";
    for (const match of firstCell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(match[1]!);
  }
  assert.ok(names.size > 0, "docs/configuration.md has tables of variables");
  return names;
}

describe("configuration as the operator reads it", () => {
  it("reads switches as booleans: true, false, 1 or 0, nothing else", () => {
    for (const [value, expected] of [
      ["true", true],
      ["1", true],
      ["false", false],
      ["0", false],
    ] as const) {
      assert.equal(loadConfig({ EXPORT_OFFICE_PREWARM: value }).export.officePrewarm, expected);
      const s3 = loadConfig({ FILES_S3_BUCKET: "campus-files", FILES_S3_FORCE_PATH_STYLE: value }).files.s3;
      assert.equal(s3?.forcePathStyle, expected);
    }
    assert.equal(loadConfig({}).export.officePrewarm, false);
    for (const value of ["yes", "TRUE", "on", "2"]) {
      assert.equal(
        configError({ EXPORT_OFFICE_PREWARM: value }),
        `Invalid environment variable EXPORT_OFFICE_PREWARM: expected true, false, 1 or 0, got "${value}"`,
      );
    }
  });

  it("reports every wrong variable at once, one line each", () => {
    const lines = configError({
      PORT: "http",
      LOG_LEVEL: "loud",
      FILES_S3_FORCE_PATH_STYLE: "maybe",
      ADMIN_TOKEN: "short",
      HOST: "127.0.0.1",
    }).split("\n");
    assert.equal(lines.length, 4);
    assert.deepEqual(
      lines.map((line) => /^Invalid environment variable (\w+): expected /.exec(line)?.[1]).sort(),
      ["ADMIN_TOKEN", "FILES_S3_FORCE_PATH_STYLE", "LOG_LEVEL", "PORT"],
    );
    assert.ok(
      lines.includes(
        'Invalid environment variable LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      ),
    );
    assert.ok(!lines.some((line) => line.includes("short")));
  });

  it("documents in docs/configuration.md every variable the code reads, and no other", async () => {
    const read = new Set([...ENVIRONMENT_VARIABLES, ...(await variablesNamedInCode())]);
    const documented = await variablesInConfigurationDoc();
    assert.ok(read.has("ADMIN_TOKEN") && read.has("NOTIFY_SEND_TIMEOUT_MS"));
    assert.deepEqual(
      { undocumented: [...read].filter((name) => !documented.has(name)).sort() },
      { undocumented: [] },
    );
    assert.deepEqual(
      { documentedButNotRead: [...documented].filter((name) => !read.has(name)).sort() },
      { documentedButNotRead: [] },
    );
  });
});
