import { readdirSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const FUZZ_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const SUITE_FILES = readdirSync(FUZZ_DIR).filter((name) => name.endsWith(".test.ts")).length;

/**
 * Inputs tried, per route family, so CI logs show how much each run covered. `node --test` runs
 * each file in a process of its own, all children of one runner: the files add their counts to a
 * ledger named for that runner, and the last one prints the suite's total.
 */
export class FuzzTally {
  private readonly families = new Map<string, number>();
  private readonly started = performance.now();

  constructor(private readonly file: string) {}

  add(family: string, inputs: number): void {
    this.families.set(family, (this.families.get(family) ?? 0) + inputs);
  }

  async report(): Promise<void> {
    let total = 0;
    for (const [family, inputs] of [...this.families].sort()) {
      console.log(`fuzz ${family}: ${inputs} inputs`);
      total += inputs;
    }
    const seconds = (performance.now() - this.started) / 1000;
    console.log(`fuzz ${basename(this.file)}: ${total} inputs in ${seconds.toFixed(1)} s`);
    const ledger = join(tmpdir(), `open-platform-fuzz-${process.ppid}.json`);
    const files: Record<string, number> = JSON.parse(await readFile(ledger, "utf8").catch(() => "{}"));
    files[basename(this.file)] = total;
    const done = Object.keys(files).length;
    const suite = Object.values(files).reduce((sum, inputs) => sum + inputs, 0);
    if (done >= SUITE_FILES) {
      console.log(`fuzz suite total: ${suite} inputs in ${done} files`);
      await rm(ledger, { force: true });
    } else {
      console.log(`fuzz suite so far: ${suite} inputs in ${done} of ${SUITE_FILES} files`);
      await writeFile(ledger, JSON.stringify(files));
    }
  }
}
