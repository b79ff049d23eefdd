import { ConfigError } from "./config.ts";

/**
 * Runs a process entry. A configuration mistake ends the process with exit code 78 and a line on
 * stderr per thing that is wrong; anything else prints its stack.
 */
export function runMain(main: () => Promise<unknown>): void {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
