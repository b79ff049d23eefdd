import assert from "node:assert/strict";
import postgres from "postgres";
import { bootstrapApplicationSchema } from "../../contracts/bootstrap.ts";
import { keepFile } from "../../files/file-intake.ts";
import type { NewFile } from "../../files/file-record.ts";
import { upsertApplication } from "../../identity/application-store.ts";
import { migrate } from "../../runtime/migrations.ts";
import { freshDatabase } from "../support/platform.ts";
import { realServices } from "../support/services.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { silentLogger } from "../support/wait.ts";

const services = await realServices();

describe("keeping a new file beside the work it goes with", {
  skip: services ? false : "Postgres unreachable",
}, () => {
  let database: { url: string; drop(): Promise<void> };
  let sql: postgres.Sql;
  let next = 0;

  /** A file of new content, its id unused. */
  const newFile = (): NewFile => {
    next += 1;
    const hex = next.toString(16).padStart(12, "0");
    const sha256 = hex.padStart(64, "a");
    return {
      id: `00000000-0000-4000-8000-${hex}`,
      name: `file-${next}.txt`,
      mime: "text/plain",
      upload: { key: `uploads/${hex}`, size: 3, sha1: "0".repeat(40), sha256, head: Buffer.alloc(0) },
      storageKey: `blobs/${sha256}`,
      owner: { applicationId: "files-app" },
    };
  };
  const recorded = async (id: string) =>
    (await sql`select count(*)::int as n from files where id = ${id}`)[0]!.n === 1;

  before(async () => {
    database = await freshDatabase(services!.databaseUrl);
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    await migrate(sql, silentLogger);
    await upsertApplication(sql, bootstrapApplicationSchema.parse({ id: "files-app", name: "Files" }));
  });

  after(async () => {
    await sql?.end({ timeout: 5 });
    await database?.drop();
  });

  it("keeps the record when the work is done, and answers both", async () => {
    const file = newFile();
    const kept = await keepFile(sql, file, async (recording) => `done with ${(await recording).name}`);
    assert.equal(kept.file.id, file.id);
    assert.equal(kept.result, `done with ${file.name}`);
    assert.ok(await recorded(file.id));
  });

  it("removes the record when the work fails beside it, and throws the work's failure", async () => {
    const file = newFile();
    await assert.rejects(
      keepFile(sql, file, async () => {
        throw new Error("the work failed");
      }),
      /the work failed/,
    );
    assert.equal(await recorded(file.id), false);
  });

  it("removes the record when work that waited for it fails", async () => {
    const file = newFile();
    await assert.rejects(
      keepFile(sql, file, async (recording) => {
        await recording;
        throw new Error("failed after the record");
      }),
      /failed after the record/,
    );
    assert.equal(await recorded(file.id), false);
  });

  it("throws the record's failure when the work is done but the file cannot be recorded", async () => {
    const file = newFile();
    await keepFile(sql, file, async () => undefined);
    // The same id again: the record fails, the work does not.
    await assert.rejects(
      keepFile(sql, { ...newFile(), id: file.id }, async () => "done"),
      /duplicate key/,
    );
    assert.ok(await recorded(file.id), "the file recorded first stays");
  });
});
