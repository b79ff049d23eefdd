import { open, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError } from "./config.ts";

/** Who holds a data directory: written into its lock file, read by whoever finds it taken. */
interface LockHolder {
  pid: number;
  command: string;
  since: string;
}

/** Lock files this process wrote: a lock naming this process's id but not listed is a former life's. */
const heldHere = new Set<string>();

function alive(pid: number, file: string): boolean {
  // In a container the platform often gets the same process id after every restart.
  if (pid === process.pid) return heldHere.has(file);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function holderOf(file: string): Promise<LockHolder | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as LockHolder;
  } catch {
    return undefined;
  }
}

/**
 * Takes the embedded database's directory for this process alone: PGlite has no locking of its
 * own, and a second process writing the same files (the admin CLI next to a running platform)
 * would see none of the first one's changes and could corrupt them. A lock left by a process that
 * died is taken over. Returns the release.
 */
export async function lockDataDirectory(directory: string): Promise<() => Promise<void>> {
  const file = join(directory, "platform.lock");
  const me: LockHolder = {
    pid: process.pid,
    command: process.argv.slice(1).join(" "),
    since: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, "wx");
      await handle.writeFile(JSON.stringify(me));
      await handle.close();
      heldHere.add(file);
      return async () => {
        heldHere.delete(file);
        await unlink(file).catch(() => {});
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await holderOf(file);
    if (holder && alive(holder.pid, file)) {
      throw new ConfigError(
        `The data directory ${directory} is in use by process ${holder.pid} (${holder.command}, since ${holder.since}). ` +
          `Stop that process first, or make the change through its admin API (ADMIN_TOKEN); if no such process runs, remove ${file}.`,
      );
    }
    await unlink(file).catch(() => {});
  }
  throw new ConfigError(
    `The data directory ${directory} could not be locked: another process keeps taking it`,
  );
}
