// `npm start`, `npm run gateway` and `npm run worker` run an entry of bin/ through this file:
// `node bin/launch.mjs bin/platform.ts [arguments]`. JavaScript, not TypeScript: it runs before
// any TypeScript loader.
//
// The entries run built: esbuild bundles them, the platform's own modules into a few files and
// the npm packages left as they are, under node_modules/.cache/open-platform/builds/. Node then
// loads plain JavaScript, without the TypeScript loader's round trip per module, which made up
// most of a start. A build is reused while none of the files it was made from has changed; a
// change is built again at the next start, in about half a second. Where no build can be made
// (a read-only node_modules, no esbuild), the entry runs from its source through tsx.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PROJECT = fileURLToPath(new URL("..", import.meta.url));
/** The entries one build holds; chunks they share are loaded once. */
const ENTRIES = ["bin/platform.ts", "bin/gateway.ts", "bin/worker.ts"];
const BUILDS = join(PROJECT, "node_modules", ".cache", "open-platform", "builds");
/** Names the build to use and what it was made from; replaced whole by a rename. */
const CURRENT = join(BUILDS, "current.json");
/** Builds kept besides the current one: a process still running may load chunks of an older one. */
const KEPT_BUILDS = 3;

/**
 * The built file of `entry` (a path below the project), building it first when the last build is
 * missing or one of its inputs changed; undefined when it cannot be built here.
 * @param {string} entry
 * @returns {Promise<string | undefined>}
 */
async function builtEntry(entry) {
  const builder = await builderId();
  const current = await readCurrent();
  if (current && current.builder === builder && (await unchanged(current.inputs))) {
    return join(BUILDS, current.dir, outputName(entry));
  }
  try {
    const built = await build(builder);
    return join(BUILDS, built.dir, outputName(entry));
  } catch (error) {
    process.stderr.write(`running from source: the build failed (${error.message})\n`);
    return undefined;
  }
}

/** This file's text and esbuild's version: a change to either makes every build stale. */
async function builderId() {
  const text = await readFile(fileURLToPath(import.meta.url));
  const esbuildPackage = join(PROJECT, "node_modules", "esbuild", "package.json");
  const version = await readFile(esbuildPackage, "utf8").then(
    (json) => JSON.parse(json).version,
    () => "none",
  );
  return createHash("sha256").update(text).update(version).digest("hex").slice(0, 16);
}

/** @returns {Promise<{ builder: string, dir: string, inputs: Record<string, [number, number]> } | undefined>} */
async function readCurrent() {
  try {
    return JSON.parse(await readFile(CURRENT, "utf8"));
  } catch {
    return undefined;
  }
}

/** Whether every input still has the size and modification time it had when built. */
async function unchanged(inputs) {
  const checks = Object.entries(inputs).map(async ([path, [size, mtimeMs]]) => {
    const now = await stat(join(PROJECT, path)).catch(() => undefined);
    return now !== undefined && now.size === size && now.mtimeMs === mtimeMs;
  });
  return (await Promise.all(checks)).every(Boolean);
}

/** `bin/platform.ts` → `platform.mjs`. */
function outputName(entry) {
  return `${relative("bin", entry).replace(/\.ts$/, "")}.mjs`;
}

/**
 * Bundles the entries into a new directory of BUILDS and makes it current. Processes building at
 * once each write their own directory; the last to rename CURRENT wins, and both builds work.
 */
async function build(builder) {
  const esbuild = await import("esbuild");
  const dir = `${Date.now().toString(36)}-${process.pid}`;
  const outdir = join(BUILDS, dir);
  await mkdir(outdir, { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: PROJECT,
    entryPoints: ENTRIES,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    // Dynamic imports stay lazy: a gateway never loads the job handlers, nor a start the sealing code.
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // npm packages load from node_modules as they are; only the platform's own code is bundled.
    packages: "external",
    sourcemap: "linked",
    metafile: true,
    logLevel: "silent",
    plugins: [sourceFileUrls],
  });
  const inputs = {};
  for (const path of [...Object.keys(result.metafile.inputs), "tsconfig.json", "package.json"]) {
    const { size, mtimeMs } = await stat(join(PROJECT, path));
    inputs[path] = [size, mtimeMs];
  }
  const next = `${CURRENT}.${process.pid}`;
  await writeFile(next, JSON.stringify({ builder, dir, inputs }));
  await rename(next, CURRENT);
  await pruneBuilds(dir);
  return { dir };
}

/**
 * Each module's `import.meta.url` stays its source file's address, so the files it finds beside
 * itself (migrations, the console's stylesheet, the thread entries) are found from the bundle.
 */
const sourceFileUrls = {
  name: "source-file-urls",
  setup(build) {
    build.onLoad({ filter: /\.(ts|mjs)$/ }, async (args) => {
      if (args.path.includes(`${join("node_modules", "")}`)) return undefined;
      const text = await readFile(args.path, "utf8");
      return {
        contents: text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
        loader: args.path.endsWith(".ts") ? "ts" : "js",
        resolveDir: dirname(args.path),
      };
    });
  },
};

/** Removes all but the newest builds; one a running process still uses may go only once it is old. */
async function pruneBuilds(keep) {
  const dirs = (await readdir(BUILDS, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && entry.name !== keep)
    .map((entry) => entry.name)
    .sort()
    .reverse();
  for (const old of dirs.slice(KEPT_BUILDS)) await rm(join(BUILDS, old), { recursive: true, force: true });
}

const [entry, ...args] = process.argv.slice(2);
if (entry === "--build") {
  // Building ahead (a container image's build step), so that starts find the build made.
  await build(await builderId());
  process.exit(0);
}
if (entry === undefined || !ENTRIES.includes(entry)) {
  process.stderr.write(`Usage: node bin/launch.mjs <${ENTRIES.join(" | ")}> [arguments] | --build\n`);
  process.exit(64);
}
const source = resolve(PROJECT, entry);
// The entry sees the arguments as if it had been started itself: `node <entry> [arguments]`.
process.argv.splice(1, process.argv.length - 1, source, ...args);
const built = await builtEntry(entry);
if (built) {
  // Stack traces name the TypeScript files and lines.
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(source).href);
}
