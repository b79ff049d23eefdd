import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "./imports.ts";

/** The folders `tsc` checks: every .ts and .tsx file of the project, as tsconfig.json lists them. */
export const PROJECT_FOLDERS: readonly string[] = JSON.parse(
  readFileSync(join(PROJECT_ROOT, "tsconfig.json"), "utf8"),
).include;

/** The folders of the platform's own code: everything `tsc` checks but the tests and benchmarks. */
export const CODE_FOLDERS: readonly string[] = PROJECT_FOLDERS.filter(
  (folder) => folder !== "test" && folder !== "bench",
);

/**
 * The capabilities' homes, each holding one capability's rules and statements (README, code
 * layout), in the order they may import each other: each only those before it.
 */
export const CAPABILITIES = [
  "identity",
  "directory",
  "tenant",
  "files",
  "notifications",
  "push",
  "seals",
  "exports",
  "workflow",
] as const;
