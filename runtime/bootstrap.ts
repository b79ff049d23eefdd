import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { type Bootstrap, bootstrapSchema } from "../contracts/bootstrap.ts";
import { issueField } from "../contracts/validation-issue.ts";
import {
  appliedDigests,
  type BootstrapEntryDigest,
  lockBootstrapEntries,
  recordAppliedDigests,
} from "./bootstrap-entry-store.ts";
import { ConfigError } from "./config.ts";
import { type Queryable, type Sql, transaction } from "./database.ts";
import type { Logger } from "./logger.ts";

/** Problems of a wrong file listed at once, so one edit can fix them all; past this many, a count. */
const MAX_PROBLEMS_LISTED = 20;

/** Where in the text a JSON syntax error lies, as an editor shows it: `line 3, column 5`. */
function syntaxErrorPlace(text: string, message: string): string {
  const position = /at position (\d+)/.exec(message);
  if (!position) return message;
  const before = text.slice(0, Number(position[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `${message.replace(/ at position \d+.*$/, "")} at line ${line}, column ${column}`;
}

/** Reads and validates the bootstrap file; a wrong file throws a line per problem, each naming its field. */
export async function readBootstrapFile(path: string): Promise<Bootstrap> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`BOOTSTRAP_FILE ${path} cannot be read: ${(error as NodeJS.ErrnoException).code}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `BOOTSTRAP_FILE ${path} is not valid JSON: ${syntaxErrorPlace(text, (error as Error).message)}`,
    );
  }
  const parsed = bootstrapSchema.safeParse(json);
  if (!parsed.success) {
    const { issues } = parsed.error;
    const problems = issues
      .slice(0, MAX_PROBLEMS_LISTED)
      .map((issue) => `BOOTSTRAP_FILE ${path}: ${issueField(issue) || "(top level)"}: ${issue.message}`);
    if (issues.length > MAX_PROBLEMS_LISTED)
      problems.push(`BOOTSTRAP_FILE ${path}: and ${issues.length - MAX_PROBLEMS_LISTED} more problems`);
    throw new ConfigError(problems.join("\n"));
  }
  const bootstrap = resolveSecretVariables(parsed.data, `BOOTSTRAP_FILE ${path}`);
  for (const seal of bootstrap.seals) {
    if (seal.image.startsWith("data:")) continue;
    // A seal image named by path is read now, relative to the bootstrap file.
    const file = resolve(dirname(path), seal.image);
    const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError(
        `BOOTSTRAP_FILE ${path}: seal ${seal.code}: ${file} cannot be read: ${error.code}`,
      );
    });
    seal.image = `data:image/png;base64,${bytes.toString("base64")}`;
  }
  return bootstrap;
}

/**
 * Reads each application's `secretEnv` from the environment into its `secret`; a variable that is
 * unset, or holds too short a secret, is an error naming the application and the variable.
 */
export function resolveSecretVariables(
  bootstrap: Bootstrap,
  source: string,
  env: NodeJS.ProcessEnv = process.env,
): Bootstrap {
  for (const application of bootstrap.applications) {
    if (!application.secretEnv) continue;
    const secret = env[application.secretEnv];
    const problem = !secret ? "is not set" : secret.length < 32 ? "holds fewer than 32 characters" : "";
    if (problem) {
      throw new ConfigError(
        `${source}: application ${application.id}: the variable ${application.secretEnv} ${problem}`,
      );
    }
    application.secret = secret;
  }
  return bootstrap;
}

/**
 * Which entries an application of the file touches: `all` (an operator's explicit apply, through
 * the CLI or the admin API), or only those `changed` since the file was last applied (at start, so
 * a restart does not undo what operators did since through the admin API or the CLI).
 */
export type BootstrapScope = "all" | "changed";

/** One entry of the file: what it is, how it is found again, and how it is written. */
export interface BootstrapEntry {
  kind: string;
  key: string;
  value: unknown;
  apply(tx: Queryable): Promise<unknown>;
}

/** A file's entries, in the order they are written (a tenant before what belongs to it). */
export type BootstrapEntries = (bootstrap: Bootstrap) => BootstrapEntry[];

/** A digest of what the file says of an entry, secrets included, so a changed secret counts. */
function digestOf(entry: BootstrapEntry): string {
  return createHash("sha256")
    .update(`${entry.kind}\n${JSON.stringify(entry.value)}`)
    .digest("hex");
}

/**
 * Creates or updates what the bootstrap file lists, in one transaction, and records what each entry
 * said; with `changed`, entries the file says the same about as when last applied are left alone.
 * Resolves with how many entries it wrote.
 */
export async function applyBootstrap(
  sql: Sql,
  bootstrap: Bootstrap,
  log: Logger,
  scope: BootstrapScope,
  /** The file's entries, as the capabilities whose statements write them make them. */
  entriesOf: BootstrapEntries,
): Promise<number> {
  const entries = entriesOf(bootstrap);
  let applied = 0;
  await transaction(sql, async (tx) => {
    await lockBootstrapEntries(tx);
    const known =
      scope === "changed" ? await appliedDigests(tx, [...new Set(entries.map((e) => e.kind))]) : undefined;
    const written: BootstrapEntryDigest[] = [];
    for (const entry of entries) {
      const digest = digestOf(entry);
      if (known?.get(`${entry.kind} ${entry.key}`) === digest) continue;
      await entry.apply(tx);
      written.push({ kind: entry.kind, key: entry.key, digest });
    }
    await recordAppliedDigests(tx, written);
    applied = written.length;
  });
  log.info(
    { entries: entries.length, applied, unchanged: entries.length - applied, scope },
    "bootstrap file applied",
  );
  return applied;
}
