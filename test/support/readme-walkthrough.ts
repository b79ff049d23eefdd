import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The shell blocks of one of the README's `## ` sections, in order. */
export async function readmeBlocks(section: string): Promise<string[]> {
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf(`\n## ${section}\n`);
  assert.ok(start >= 0, `the README has a ${section} section`);
  const end = readme.indexOf("\n## ", start + 1);
  const text = readme.slice(start, end < 0 ? undefined : end);
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** Runs a script under bash in its own process group, so the whole tree can be stopped at once. */
export function runScript(script: string, cwd: string, env: Record<string, string>) {
  const child = spawn("bash", ["-c", `set -euo pipefail\n${script}`], {
    cwd,
    env: { PATH: process.env.PATH!, ...env },
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk;
  });
  return { child, output: () => ({ stdout, stderr }) };
}

/** Stops what `npm start` started, as Ctrl-C in its terminal would, and waits for it to be gone. */
export async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  process.kill(-child.pid!, "SIGINT");
  try {
    await Promise.race([exited, once(child, "exit", { signal: AbortSignal.timeout(30_000) })]);
  } catch {
    process.kill(-child.pid!, "SIGKILL");
    await exited;
  }
}
