import type { z } from "zod";
import {
  BOOTSTRAP_SECTION_MAX,
  type Bootstrap,
  bootstrapApplicationSchema,
  bootstrapDepartmentSchema,
  bootstrapPositionSchema,
  bootstrapPostSchema,
  bootstrapSealSchema,
  bootstrapTenantAdministratorsSchema,
  bootstrapTenantSchema,
  bootstrapUserSchema,
  bootstrapWorkflowSchema,
} from "../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { bootstrapFeedSchema } from "../contracts/feed.ts";
import { bootstrapMembershipSchema, bootstrapTagSchema } from "../contracts/tenant-data.ts";
import { firstIssueMessage } from "../contracts/validation-issue.ts";
import { type Queryable, type Sql, transaction } from "./database.ts";
import type { Logger } from "./logger.ts";

/**
 * What the database holds, as a bootstrap document: without secrets (applications keep theirs,
 * accounts their passwords, when it is applied) and without `channels`, which are not in the database.
 */
export type ExportedBootstrap = Omit<Bootstrap, "$schema" | "channels">;

export interface BootstrapExport {
  document: ExportedBootstrap;
  /** Entries the bootstrap schema cannot express (an account pushed with an e-mail it refuses), left out. */
  omitted: number;
}

const PAGE = 500;

/** The object without its null and undefined fields: a bootstrap entry leaves out what is not set. */
export function withoutUnset<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== null && value !== undefined),
  ) as Partial<T>;
}

/** Every row a keyset-paged read gives, page after page. */
export async function* everyRow<T, K>(
  read: (after: K | null, limit: number) => Promise<T[]>,
  keyOf: (row: T) => K,
): AsyncGenerator<T> {
  let after: K | null = null;
  for (;;) {
    const rows = await read(after, PAGE);
    yield* rows;
    if (rows.length < PAGE) return;
    after = keyOf(rows.at(-1)!);
  }
}

type SectionName = keyof ExportedBootstrap;

/** The entries of one section, each checked against its schema; one it refuses is left out and logged. */
class Section<S extends z.ZodType> {
  readonly entries: z.output<S>[] = [];
  omitted = 0;

  constructor(
    private readonly name: SectionName,
    private readonly schema: S,
    private readonly log: Logger,
  ) {}

  add(key: string, entry: unknown): void {
    const parsed = this.schema.safeParse(entry);
    if (!parsed.success) {
      this.omitted += 1;
      const problem = firstIssueMessage(parsed.error.issues);
      this.log.warn({ section: this.name, key, problem }, "bootstrap export leaves out an entry");
      return;
    }
    const max = BOOTSTRAP_SECTION_MAX[this.name];
    if (this.entries.length >= max) {
      throw new PlatformError(
        ErrorCode.Conflict,
        `the platform holds more ${this.name} than a bootstrap document takes (${max})`,
      );
    }
    this.entries.push(parsed.data);
  }
}

/** A tenant as a section's export reads it: its id for statements, its domain for entries. */
export interface ExportTenant {
  id: string;
  domain: string;
}

/** An entry of a section, found again by its key. */
export interface ExportedEntry {
  key: string;
  entry: unknown;
}

/** How a capability exports one section of the document, for the tenants read first. */
export interface SectionExport {
  section: Exclude<SectionName, "tenants">;
  entries(tx: Queryable, tenants: readonly ExportTenant[]): AsyncIterable<ExportedEntry>;
}

/** How the tenants are exported: each with its entry, read before the sections that belong to one. */
export type TenantExport = (tx: Queryable) => AsyncIterable<{ tenant: ExportTenant } & ExportedEntry>;

const SECTION_SCHEMAS = {
  tenants: bootstrapTenantSchema,
  applications: bootstrapApplicationSchema,
  users: bootstrapUserSchema,
  departments: bootstrapDepartmentSchema,
  posts: bootstrapPostSchema,
  positions: bootstrapPositionSchema,
  seals: bootstrapSealSchema,
  feeds: bootstrapFeedSchema,
  workflows: bootstrapWorkflowSchema,
  tags: bootstrapTagSchema,
  memberships: bootstrapMembershipSchema,
  tenantAdministrators: bootstrapTenantAdministratorsSchema,
} satisfies Record<SectionName, z.ZodType>;

/**
 * The configuration the database holds, as a bootstrap document, read in one snapshot: the
 * tenants, then each capability's sections. Applying it changes nothing.
 */
export async function exportBootstrap(
  sql: Sql,
  log: Logger,
  tenantExport: TenantExport,
  sectionExports: readonly SectionExport[],
): Promise<BootstrapExport> {
  return transaction(
    sql,
    async (tx) => {
      const sections = Object.fromEntries(
        Object.entries(SECTION_SCHEMAS).map(([name, schema]) => [
          name,
          new Section(name as SectionName, schema, log),
        ]),
      ) as { [name in SectionName]: Section<(typeof SECTION_SCHEMAS)[name]> };
      const tenants: ExportTenant[] = [];
      for await (const { tenant, key, entry } of tenantExport(tx)) {
        tenants.push(tenant);
        sections.tenants.add(key, entry);
      }
      for (const { section, entries } of sectionExports) {
        for await (const { key, entry } of entries(tx, tenants)) sections[section].add(key, entry);
      }
      const document = Object.fromEntries(
        Object.entries(sections).map(([name, section]) => [name, section.entries]),
      ) as ExportedBootstrap;
      const omitted = Object.values(sections).reduce((sum, section) => sum + section.omitted, 0);
      return { document, omitted };
    },
    "isolation level repeatable read read only",
  );
}
