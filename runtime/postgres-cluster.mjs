// JavaScript, not TypeScript: it runs on the embedded database's thread, which starts without the
// TypeScript loader (see embedded-postgres-thread.mjs).
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { threadId } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";

/** Where PGlite keeps the cluster in its own file system. */
const PGDATA = "/pglite/data";
/** Written last into a cluster: a directory holding it holds a whole cluster. */
const LAST_FILE = "PG_VERSION";

const exists = (path) =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * Makes the Postgres cluster (what initdb writes) in `directory` unless it holds one. Every new
 * cluster of a PGlite version is the same, so the first one made on a machine is kept under
 * node_modules/.cache and later ones are copies of it: a copy takes a tenth of a second where
 * initdb takes seconds. Without a cache it can write, initdb writes straight into `directory`;
 * should that fail too, PGlite runs its own initdb when it opens the directory.
 * @param {string} directory
 * @param {{ startParams: string[], pgliteWasmModule: WebAssembly.Module }} options the database's
 *   own, also used to make the cluster
 */
export async function ensureCluster(directory, options) {
  if (await exists(join(directory, LAST_FILE))) return;
  const template = await templateCluster(options).catch(() => undefined);
  if (template) await copyCluster(template, directory);
  else await initdbInto(directory, options).catch(() => {});
}

/** The cached cluster of this PGlite version, made now if there is none. */
async function templateCluster(options) {
  const entry = import.meta.resolve("@electric-sql/pglite");
  const { version } = JSON.parse(await readFile(new URL("../package.json", entry), "utf8"));
  const cache = fileURLToPath(new URL("../../../.cache/open-platform/", entry));
  const template = join(cache, `postgres-cluster-pglite-${version}`);
  if (await exists(join(template, LAST_FILE))) return template;
  await mkdir(cache, { recursive: true });
  // Made aside and renamed into place, so the template is whole or absent; when processes make it
  // at once, the first rename wins and the others drop theirs.
  const building = `${template}.${process.pid}.${threadId}`;
  try {
    await initdbInto(building, options);
    await rename(building, template).catch(async (error) => {
      if (!(await exists(join(template, LAST_FILE)))) throw error;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return template;
}

/**
 * Runs initdb in memory, where PGlite makes a cluster fastest, stops the database cleanly and
 * writes the cluster's files to `directory`.
 */
async function initdbInto(directory, options) {
  const db = await PGlite.create({ dataDir: "memory://", ...options });
  // The in-memory file system outlives the database it held, so it is read after a clean stop.
  const fs = db.Module.FS;
  await db.close();
  await writeTree(fs, PGDATA, directory, LAST_FILE);
  await writeFile(join(directory, LAST_FILE), fs.readFile(`${PGDATA}/${LAST_FILE}`), { mode: 0o600 });
}

async function writeTree(fs, from, to, skipped) {
  await mkdir(to, { recursive: true, mode: 0o700 });
  const names = fs.readdir(from).filter((name) => name !== "." && name !== ".." && name !== skipped);
  await Promise.all(
    names.map((name) => {
      const path = `${from}/${name}`;
      if (fs.isDir(fs.stat(path).mode)) return writeTree(fs, path, join(to, name));
      return writeFile(join(to, name), fs.readFile(path), { mode: 0o600 });
    }),
  );
}

async function copyCluster(from, to) {
  await copyTree(from, to, LAST_FILE);
  await copyFile(join(from, LAST_FILE), join(to, LAST_FILE));
}

async function copyTree(from, to, skipped) {
  await mkdir(to, { recursive: true, mode: 0o700 });
  const entries = await readdir(from, { withFileTypes: true });
  await Promise.all(
    entries
      .filter((entry) => entry.name !== skipped)
      .map((entry) =>
        entry.isDirectory()
          ? copyTree(join(from, entry.name), join(to, entry.name))
          : copyFile(join(from, entry.name), join(to, entry.name)),
      ),
  );
}
