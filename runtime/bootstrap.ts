import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { type Bootstrap, bootstrapSchema } from "../contracts/bootstrap.ts";
import { issueField } from "../contracts/validation-issue.ts";
import { loadChannel } from "./channel-plugins.ts";
import { ConfigError } from "./config.ts";
import { type Queryable, type Sql, transaction } from "./database.ts";
import type { Logger } from "./logger.ts";
import { upsertApplication } from "./store/applications.ts";
import {
  appliedDigests,
  type BootstrapEntryDigest,
  lockBootstrapEntries,
  recordAppliedDigests,
} from "./store/bootstrap-entries.ts";
import { upsertChannel } from "./store/channels.ts";
import { upsertFeed } from "./store/feeds.ts";
import { grantPosition } from "./store/positions.ts";
import { upsertSeal } from "./store/seals.ts";
import { tenantByDomain, upsertTenant } from "./store/tenants.ts";
import { upsertDepartment, upsertPost } from "./store/triples.ts";
import { upsertUser } from "./store/users.ts";

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

function entriesOf(bootstrap: Bootstrap): BootstrapEntry[] {
  return [
    ...bootstrap.tenants.map((tenant) => ({
      kind: "tenant",
      key: tenant.domain,
      value: tenant,
      apply: (tx: Queryable) => upsertTenant(tx, tenant),
    })),
    ...bootstrap.applications.map((application) => ({
      kind: "application",
      key: application.id,
      value: application,
      apply: (tx: Queryable) => upsertApplication(tx, application),
    })),
    ...bootstrap.users.map((user) => ({
      kind: "user",
      key: `${user.tenant}/${user.account}`,
      value: user,
      apply: (tx: Queryable) => upsertUser(tx, user),
    })),
    ...bootstrap.departments.map((dept) => ({
      kind: "department",
      key: `${dept.tenant}/${dept.code}`,
      value: dept,
      apply: async (tx: Queryable) =>
        upsertDepartment(tx, await tenantIdOf(tx, dept.tenant, `department ${dept.code}`), dept),
    })),
    ...bootstrap.posts.map((post) => ({
      kind: "post",
      key: `${post.tenant}/${post.code}`,
      value: post,
      apply: async (tx: Queryable) =>
        upsertPost(tx, await tenantIdOf(tx, post.tenant, `post ${post.code}`), post),
    })),
    ...bootstrap.positions.map((position) => {
      const name = `${position.account} as ${position.dept}:${position.post}`;
      return {
        kind: "position",
        key: `${position.tenant}/${name}`,
        value: position,
        async apply(tx: Queryable) {
          const tenantId = await tenantIdOf(tx, position.tenant, `position ${name}`);
          await grantPosition(tx, tenantId, position, {
            code: position.account,
            number: position.number,
          }).catch((error: Error) => {
            throw new ConfigError(`position ${name}: ${error.message}`);
          });
        },
      };
    }),
    ...bootstrap.seals.map((seal) => ({
      kind: "seal",
      key: `${seal.tenant ?? ""}/${seal.code}`,
      value: seal,
      async apply(tx: Queryable) {
        const tenant = seal.tenant ? await tenantByDomain(tx, seal.tenant) : undefined;
        if (seal.tenant && !tenant) throw new ConfigError(`seal ${seal.code}: no tenant ${seal.tenant}`);
        await upsertSeal(tx, seal, tenant?.id ?? null);
      },
    })),
    ...bootstrap.feeds.map((feed) => ({
      kind: "feed",
      key: feed.tenant,
      value: feed,
      apply: (tx: Queryable) => upsertFeed(tx, feed),
    })),
    ...bootstrap.channels.map((channel) => ({
      kind: "channel",
      key: channel.name,
      value: channel,
      async apply(tx: Queryable) {
        // Checked as the applying process reads its variables; workers read their own.
        await loadChannel(channel, process.env, "skip");
        await upsertChannel(tx, channel);
      },
    })),
  ];
}

async function tenantIdOf(tx: Queryable, domain: string, entry: string): Promise<string> {
  const tenant = await tenantByDomain(tx, domain);
  if (!tenant) throw new ConfigError(`${entry}: no tenant with domain ${domain}`);
  return tenant.id;
}

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
  /** Entries of sections whose statements live outside the runtime (the workflow apps). */
  moreEntries: (bootstrap: Bootstrap) => BootstrapEntry[] = () => [],
): Promise<number> {
  const entries = [...entriesOf(bootstrap), ...moreEntries(bootstrap)];
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
