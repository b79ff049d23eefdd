import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { CAPABILITIES, CODE_FOLDERS, PROJECT_FOLDERS } from "../support/code-folders.ts";
import { importsOf, localImports, PROJECT_ROOT as ROOT } from "../support/imports.ts";

/**
 * Which top-level folders each folder's code may import, as the README's code layout states. A
 * capability may import another only that comes before it in `CAPABILITIES`.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  contracts: ["contracts"],
  plugins: ["contracts", "plugins"],
  runtime: ["contracts", "runtime"],
  ...Object.fromEntries(
    CAPABILITIES.map((capability, index) => [
      capability,
      ["contracts", "runtime", ...CAPABILITIES.slice(0, index + 1)],
    ]),
  ),
  // The channel plugins are the notifications' own: the built-in channels are loaded by name.
  notifications: [
    "contracts",
    "runtime",
    ...CAPABILITIES.slice(0, CAPABILITIES.indexOf("notifications") + 1),
    "plugins",
  ],
  gateway: ["contracts", "runtime", ...CAPABILITIES, "gateway"],
  workers: ["contracts", "runtime", ...CAPABILITIES, "plugins", "workers"],
};
/** Packages that tie code to a surface: a capability's rules must run without them. */
const FORBIDDEN_PACKAGES: Record<string, RegExp> = Object.fromEntries(
  CAPABILITIES.map((capability) => [capability, /^(hono|@hono\/)/]),
);

/** A capability's statements (in its folder or one of its subfolders): only that folder's files import them. */
const isStore = (file: string) => /^[a-z]+\/(?:[a-z0-9-]+\/)*[^/]+-store\.ts$/.test(file);
/** Whether `file` lies inside the folder that holds `store`. */
const inFolderOf = (store: string, file: string) =>
  file.startsWith(store.slice(0, store.lastIndexOf("/") + 1));

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/**
 * Every import circle of the graph, each as the path that closes it (`a.ts → b.ts → a.ts`): one
 * per strongly connected component, found with Tarjan's algorithm.
 */
function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    lowest.set(file, order.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        lowest.set(file, Math.min(lowest.get(file)!, lowest.get(next)!));
      } else if (onStack.has(next)) lowest.set(file, Math.min(lowest.get(file)!, order.get(next)!));
    }
    if (lowest.get(file) !== order.get(file)) return;
    const component = new Set<string>();
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.add(member);
    } while (member !== file);
    const closing = pathWithin(graph, component, file);
    if (closing) circles.push(closing.join(" → "));
  };
  for (const file of [...graph.keys()].sort()) if (!order.has(file)) visit(file);
  return circles;
}

/** A shortest import path from `start` back to itself through the component's files, if one exists. */
function pathWithin(
  graph: ReadonlyMap<string, readonly string[]>,
  component: ReadonlySet<string>,
  start: string,
): string[] | undefined {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (const file of queue) {
    for (const next of graph.get(file) ?? []) {
      if (next === start) {
        const path = [start];
        for (let at = file; at !== start; at = cameFrom.get(at)!) path.unshift(at);
        return [start, ...path];
      }
      if (component.has(next) && !cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return undefined;
}

describe("import rules", () => {
  it("each folder imports only the folders the code layout allows", async () => {
    const broken: string[] = [];
    for (const [folder, allowed] of Object.entries(MAY_IMPORT)) {
      for (const file of await sourceFiles(folder)) {
        for (const specifier of importsOf(await readFile(join(ROOT, file), "utf8"))) {
          if (FORBIDDEN_PACKAGES[folder]?.test(specifier)) broken.push(`${file} imports ${specifier}`);
          if (!specifier.startsWith(".")) continue;
          const path = relative(ROOT, resolve(dirname(join(ROOT, file)), specifier));
          const target = path.split("/")[0]!;
          if (!allowed.includes(target))
            broken.push(`${file} imports ${specifier} (${folder}/ may import ${allowed.join(", ")})`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  // The routes and job handlers call a capability's service functions; the statements stay
  // behind them, and another capability reaches them through its named surface.
  it("a store is imported only in its own capability's folder", async () => {
    const found: string[] = [];
    for (const folder of CODE_FOLDERS) {
      for (const file of await sourceFiles(folder)) {
        for (const path of localImports(file, await readFile(join(ROOT, file), "utf8"))) {
          if (isStore(path) && !inFolderOf(path, file)) found.push(`${file} → ${path}`);
        }
      }
    }
    assert.ok(isStore("notifications/delivery-task-store.ts"), "the store modules are recognized");
    assert.ok(isStore("workflow/outbox/outbox-store.ts"), "a subfolder's store modules are recognized");
    assert.ok(!inFolderOf("workflow/outbox/outbox-store.ts", "workflow/process-service.ts"));
    assert.ok(isStore("workflow/messenger/callback-store.ts"), "and those of a capability's sub-folder");
    assert.deepEqual(found, []);
  });

  // Every kind of import counts: static and dynamic, value and type-only, and re-exports. A
  // type-only circle still means neither file can be read, moved or tested without the other.
  it("no file imports itself through others: the project has no import circle", async () => {
    const graph = new Map<string, string[]>();
    for (const folder of PROJECT_FOLDERS) {
      for (const file of await sourceFiles(folder)) {
        graph.set(file, localImports(file, await readFile(join(ROOT, file), "utf8")));
      }
    }
    assert.ok(graph.size > 100, "the project's files are read");
    assert.deepEqual(importCircles(graph), []);
  });

  it("finds and names a circle, type-only imports included", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts", "d.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", []],
      ["e.ts", ["e.ts"]],
    ]);
    assert.deepEqual(importCircles(graph), ["a.ts → b.ts → c.ts → a.ts", "e.ts → e.ts"]);
    assert.deepEqual(localImports("x/y.ts", 'import type { T } from "../z.ts";\nimport("./w.ts");'), [
      "z.ts",
      "x/w.ts",
    ]);
  });
});
