import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import sharp from "sharp";
import type { FileEntity } from "../../contracts/files.ts";
import { sealPng } from "../support/pdf-fixtures.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { startS3Server } from "../support/s3-server.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const SECRET = "files-app-secret-0123456789abcdefghijklmno";
const UPLOAD_LIMIT = 2_000_000;
/** Wrong file tokens before a lockout: more than the disposable-token case spends. */
const TOKEN_MAX_FAILURES = 20;
const TOKEN_LOCKOUT_SECONDS = 3;

interface Envelope {
  errno: number;
  ecode: string;
  error: string;
  total: number;
  entities: FileEntity[];
}

const sha1 = (bytes: Uint8Array) => createHash("sha1").update(bytes).digest("hex");

const variants = (await testModes()).flatMap((mode) =>
  // The distributed mode runs once more with its files in an S3-compatible bucket.
  mode.name === "distributed"
    ? [
        { mode, s3: false },
        { mode, s3: true },
      ]
    : [{ mode, s3: false }],
);

for (const { mode, s3 } of variants) {
  describe(`file service (${mode.name}${s3 ? ", S3-compatible storage" : ""})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    let stopS3 = async () => {};
    let owner: string;
    let other: string;

    const token = (fields: Record<string, string>, client = "files-app") =>
      issueToken(platform.url, { id: client, secret: SECRET }, fields);

    async function upload(
      bytes: Uint8Array,
      options: {
        name?: string;
        query?: string;
        fields?: Record<string, string>;
        id?: string;
        as?: string;
      } = {},
    ) {
      const form = new FormData();
      for (const [name, value] of Object.entries(options.fields ?? {})) form.set(name, value);
      form.set("file", new Blob([bytes]), options.name ?? "upload.bin");
      const path = options.id ? `/file/${options.id}` : "/file";
      const response = await fetch(
        `${platform.url}${path}?access_token=${options.as ?? owner}${options.query ?? ""}`,
        {
          method: options.id ? "POST" : "PUT",
          body: form,
        },
      );
      return { status: response.status, body: (await response.json()) as Envelope };
    }

    const download = (id: string, query = "", headers: Record<string, string> = {}) =>
      fetch(`${platform.url}/file/${id}${query}`, { headers });

    async function setMeta(id: string, meta: Record<string, unknown>, as = owner) {
      const response = await fetch(`${platform.url}/file/${id}/meta?access_token=${as}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ meta }),
      });
      return { status: response.status, body: (await response.json()) as Envelope };
    }

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const bucket = s3 ? await startS3Server() : undefined;
      if (bucket) stopS3 = bucket.stop;
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, {
          tenants: [{ domain: "example.edu", name: "Example University" }],
          applications: [
            {
              id: "files-app",
              secret: SECRET,
              name: "Files",
              scopes: ["send_notification", "notifications"],
            },
            { id: "other-app", secret: SECRET, name: "Other", scopes: ["notifications"] },
          ],
          users: [
            { tenant: "example.edu", account: "reader", name: "Reader", password: "reader password 1" },
          ],
        })),
        ...bucket?.env,
        FILE_MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT),
        FILE_TOKEN_MAX_FAILURES: String(TOKEN_MAX_FAILURES),
        FILE_TOKEN_LOCKOUT_SECONDS: String(TOKEN_LOCKOUT_SECONDS),
        // As behind one proxy: the client is the last X-Forwarded-For entry.
        TRUST_PROXY_HOPS: "1",
      });
      owner = await token({ grant_type: "client_credentials", scope: "notifications" });
      other = await token({ grant_type: "client_credentials", scope: "notifications" }, "other-app");
    });

    after(async () => {
      await platform?.stop();
      await stopS3();
      await cleanup?.();
    });

    it("stores an upload and answers spec 001's file record, the type sniffed from the content", async () => {
      const png = sealPng(40);
      const stored = await upload(png, { name: "seal.png" });
      assert.equal(stored.status, 200, JSON.stringify(stored.body));
      const [file] = stored.body.entities;
      assert.equal(file!.kind, "canvas.file");
      assert.equal(file!.name, "seal.png");
      assert.equal(file!.mime, "image/png");
      assert.equal(file!.size, png.length);
      assert.equal(file!.sha1Hash, sha1(png));
      assert.equal(file!.uri, `${platform.url}/file/${file!.id}`);
      assert.ok(file!.createTime > 0 && file!.lastModified >= file!.createTime);
      const text = await upload(new TextEncoder().encode("plain words, no magic number"), { name: "notes" });
      assert.equal(text.body.entities[0]!.mime, "application/octet-stream");

      const got = await download(file!.id);
      assert.equal(got.status, 200);
      assert.equal(got.headers.get("content-type"), "image/png");
      assert.deepEqual(new Uint8Array(await got.arrayBuffer()), new Uint8Array(png));
    });

    it("keeps a file's name as its uploader wrote it, in any script", async () => {
      const stored = await upload(new TextEncoder().encode("成绩"), { name: "成绩单 Grades – 2026.txt" });
      assert.equal(stored.status, 200, JSON.stringify(stored.body));
      assert.equal(stored.body.entities[0]!.name, "成绩单 Grades – 2026.txt");
      const got = await download(stored.body.entities[0]!.id as string);
      assert.match(
        got.headers.get("content-disposition") ?? "",
        new RegExp(
          `filename\\*=UTF-8''${encodeURIComponent("成绩单 Grades – 2026.txt").replace(/[()*]/g, "\\$&")}`,
        ),
      );
    });

    it("stores identical content once, however many files share it", async () => {
      const bytes = new TextEncoder().encode(`shared content ${mode.name}`);
      const first = await upload(bytes);
      const second = await upload(bytes);
      assert.notEqual(first.body.entities[0]!.id, second.body.entities[0]!.id);
      const [row] = await platform.running.platform.db.sql<{ blobs: number }[]>`
        select count(*)::int as blobs from blobs where sha256 = ${createHash("sha256").update(bytes).digest("hex")}`;
      assert.equal(row!.blobs, 1);
    });

    it("serves byte ranges and answers 304 to a matching If-None-Match", async () => {
      const bytes = new TextEncoder().encode("0123456789abcdef");
      const { id } = (await upload(bytes)).body.entities[0]!;
      const part = await download(id, "", { range: "bytes=4-7" });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get("content-range"), "bytes 4-7/16");
      assert.equal(await part.text(), "4567");
      const tail = await download(id, "", { range: "bytes=-3" });
      assert.equal(await tail.text(), "def");
      assert.equal((await download(id, "", { range: "bytes=99-" })).status, 416);
      const whole = await download(id);
      const etag = whole.headers.get("etag")!;
      await whole.arrayBuffer();
      const again = await download(id, "", { "if-none-match": etag });
      assert.equal(again.status, 304);
    });

    it("replaces content keeping the id, for the owner only; deletes it", async () => {
      const { id } = (await upload(new TextEncoder().encode("version one"))).body.entities[0]!;
      const refused = await upload(new TextEncoder().encode("not yours"), { id, as: other });
      assert.equal(refused.status, 403);
      const replaced = await upload(new TextEncoder().encode("version two"), { id, name: "v2.txt" });
      assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
      assert.equal(replaced.body.entities[0]!.id, id);
      assert.equal(replaced.body.entities[0]!.name, "v2.txt");
      assert.equal(await (await download(id)).text(), "version two");

      const notYours = await fetch(`${platform.url}/file/${id}?access_token=${other}`, { method: "DELETE" });
      assert.equal(notYours.status, 403);
      const deleted = await fetch(`${platform.url}/file/${id}?access_token=${owner}`, { method: "DELETE" });
      assert.equal(deleted.status, 200);
      const gone = await download(id);
      assert.equal(gone.status, 404);
      const envelope = (await gone.json()) as Envelope;
      assert.equal(envelope.errno, 10004);
    });

    it("reads and sets meta; the file token is kept hashed and never shown", async () => {
      const { id } = (await upload(new TextEncoder().encode("meta"))).body.entities[0]!;
      const set = await setMeta(id, {
        color: "red",
        token: "a-file-token-0123456789",
        tokenExpire: 4_102_444_800,
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const read = (await (await fetch(`${platform.url}/file/${id}/meta`)).json()) as Envelope;
      assert.equal(read.entities[0]!.meta.color, "red");
      assert.equal(read.entities[0]!.meta.token, "(set)");
      const [row] = await platform.running.platform.db.sql`select token_hash from files where id = ${id}`;
      assert.match(String(row!.token_hash), /^[0-9a-f]{64}$/);
      assert.equal((await setMeta(id, { color: "blue" }, other)).status, 403);
      assert.equal(
        (await setMeta(id, { thumbsizes: ["1x1", "2x2", "3x3", "4x4", "5x5", "6x6"] })).status,
        400,
      );
      const removed = await setMeta(id, { color: null });
      assert.equal(removed.body.entities[0]!.meta.color, undefined);
    });

    it("guards a secure file: owner tokens (user downloads audited) or the file's own token", async () => {
      const bytes = new TextEncoder().encode("secret minutes");
      const { id, meta } = (await upload(bytes, { query: "&secure=true" })).body.entities[0]!;
      assert.equal(meta.secure, true);
      const anonymous = await download(id);
      assert.equal(anonymous.status, 401);
      assert.equal(((await anonymous.json()) as Envelope).errno, 10007);
      assert.equal((await download(id, `?access_token=${other}`)).status, 403);
      assert.equal(await (await download(id, `?access_token=${owner}`)).text(), "secret minutes");
      const user = await token({
        grant_type: "password",
        username: "reader",
        password: "reader password 1",
        scope: "send_notification",
      });
      assert.equal((await download(id, `?access_token=${user}`)).status, 200);
      const [audit] = await platform.running.platform.db.sql<{ downloads: number }[]>`
        select count(*)::int as downloads from file_downloads d join users u on u.id = d.user_id
        where d.file_id = ${id} and u.account = 'reader'`;
      assert.equal(audit!.downloads, 1);

      await setMeta(id, { token: "lasting-token-0123456789" });
      assert.equal((await download(id, "?access_token=lasting-token-0123456789")).status, 200);
      assert.equal((await download(id, "?access_token=lasting-token-0123456789")).status, 200);
      assert.equal((await download(id, "?access_token=wrong-token-0123456789")).status, 401);

      await setMeta(id, {
        token: "expired-token-0123456789",
        tokenExpire: Math.floor(Date.now() / 1000) - 10,
      });
      assert.equal((await download(id, "?access_token=expired-token-0123456789")).status, 401);
    });

    it("answers times in Unix seconds and reads tokenExpire as Unix seconds", async () => {
      const before = Math.floor(Date.now() / 1000);
      const uploaded = (await upload(new TextEncoder().encode("timed"), { query: "&secure=true" })).body
        .entities[0]!;
      const now = () => Math.ceil(Date.now() / 1000);
      assert.ok(
        uploaded.createTime >= before && uploaded.createTime <= now(),
        `createTime ${uploaded.createTime} is a Unix time in seconds`,
      );
      assert.ok(uploaded.lastModified >= uploaded.createTime && uploaded.lastModified <= now());

      const expire = now() + 60;
      const set = await setMeta(uploaded.id, { token: "seconds-token-0123456789", tokenExpire: expire });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal(set.body.entities[0]!.meta.tokenExpire, expire);
      assert.ok(set.body.entities[0]!.lastModified <= now());
      assert.equal((await download(uploaded.id, "?access_token=seconds-token-0123456789")).status, 200);
      const meta = await fetch(
        `${platform.url}/file/${uploaded.id}/meta?access_token=seconds-token-0123456789`,
      );
      assert.equal(meta.status, 200);
      assert.equal(((await meta.json()) as Envelope).entities[0]!.createTime, uploaded.createTime);

      // Milliseconds are refused rather than read as a time thousands of years away.
      const milliseconds = await setMeta(uploaded.id, { tokenExpire: Date.now() + 60_000 });
      assert.equal(milliseconds.status, 400);
      assert.match(milliseconds.body.error, /^meta\.tokenExpire: Unix seconds/);

      await setMeta(uploaded.id, { tokenExpire: Math.floor(Date.now() / 1000) - 1 });
      assert.equal((await download(uploaded.id, "?access_token=seconds-token-0123456789")).status, 401);
    });

    it("takes a self-managed token of any length up to 256 characters", async () => {
      const { id } = (await upload(new TextEncoder().encode("short token"), { query: "&secure=true" })).body
        .entities[0]!;
      const set = await setMeta(id, { token: "k" });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal(await (await download(id, "?access_token=k")).text(), "short token");
      assert.equal((await setMeta(id, { token: "x".repeat(256) })).status, 200);
      assert.equal((await download(id, `?access_token=${"x".repeat(256)}`)).status, 200);
      for (const refused of ["", "x".repeat(257)]) {
        const answer = await setMeta(id, { token: refused });
        assert.equal(answer.status, 400);
        assert.match(answer.body.error, /^meta\.token: /);
      }
    });

    it("locks an address out of a file after too many wrong tokens, the right one included, until the lockout passes", async () => {
      const secureFile = async (content: string) => {
        const { id } = (await upload(new TextEncoder().encode(content), { query: "&secure=true" })).body
          .entities[0]!;
        assert.equal((await setMeta(id, { token: "k" })).status, 200);
        return id;
      };
      const guessed = await secureFile("guessed");
      const other = await secureFile("other");
      const from = (address: string) => ({ "x-forwarded-for": address });
      const guesser = "203.0.113.7";

      for (let guess = 0; guess < TOKEN_MAX_FAILURES; guess++) {
        const wrong = await download(guessed, `?access_token=${guess}`, from(guesser));
        assert.equal(wrong.status, 401, `guess ${guess}`);
        await wrong.arrayBuffer();
      }
      const locked = await download(guessed, "?access_token=k", from(guesser));
      assert.equal(locked.status, 429);
      const retryAfter = Number(locked.headers.get("retry-after"));
      assert.ok(retryAfter >= 1 && retryAfter <= TOKEN_LOCKOUT_SECONDS, `Retry-After ${retryAfter}`);
      const envelope = (await locked.json()) as Envelope;
      assert.deepEqual([envelope.errno, envelope.ecode], [10029, "RATE_LIMITED"]);
      assert.match(envelope.error, /too many wrong tokens/);
      const meta = await fetch(`${platform.url}/file/${guessed}/meta?access_token=k`, {
        headers: from(guesser),
      });
      assert.equal(meta.status, 429);
      // The entries a client writes itself before the proxy's are not believed.
      const disguised = await download(guessed, "?access_token=k", from(`198.51.100.1, ${guesser}`));
      assert.equal(disguised.status, 429);

      assert.equal(await (await download(other, "?access_token=k", from(guesser))).text(), "other");
      assert.equal(
        await (await download(guessed, "?access_token=k", from("198.51.100.9"))).text(),
        "guessed",
      );
      assert.equal((await download(guessed, `?access_token=${owner}`, from(guesser))).status, 200);

      await sleep(retryAfter * 1000 + 250);
      assert.equal(await (await download(guessed, "?access_token=k", from(guesser))).text(), "guessed");
    });

    it("lets a disposable token through exactly once, even to concurrent downloads", async () => {
      const { id } = (await upload(new TextEncoder().encode("once"), { query: "&secure=true" })).body
        .entities[0]!;
      await setMeta(id, { token: "disposable-token-0123456789", tokenDisposable: true, tokenExpire: null });
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => download(id, "?access_token=disposable-token-0123456789")),
      );
      const statuses = await Promise.all(
        answers.map(async (answer) => {
          await answer.arrayBuffer();
          return answer.status;
        }),
      );
      assert.equal(statuses.filter((status) => status === 200).length, 1, JSON.stringify(statuses));
      assert.equal(statuses.filter((status) => status === 401).length, 11);
      assert.equal((await download(id, "?access_token=disposable-token-0123456789")).status, 401);
    });

    it("makes the thumbnails asked for: stretched, never larger than the original; others are 404", async () => {
      const original = await sharp({
        create: { width: 400, height: 300, channels: 3, background: "#3366cc" },
      })
        .jpeg()
        .toBuffer();
      const bad = await upload(original, { fields: { thumbsizes: "100x50,2000x2000" } });
      assert.equal(bad.status, 400);
      const { id, thumbsizes } = (
        await upload(original, { name: "photo.jpg", fields: { thumbsizes: "100x50,800x600" } })
      ).body.entities[0]!;
      assert.deepEqual(thumbsizes, ["100x50", "800x600"]);
      const thumb = async (size: string) => fetch(`${platform.url}/file/${id}/thumb/${size}`);
      await waitFor(async () => (await thumb("800x600")).status === 200, 10_000, "thumbnails made");
      const small = await sharp(Buffer.from(await (await thumb("100x50")).arrayBuffer())).metadata();
      assert.deepEqual([small.width, small.height, small.format], [100, 50, "jpeg"]);
      const capped = await sharp(Buffer.from(await (await thumb("800x600")).arrayBuffer())).metadata();
      assert.deepEqual([capped.width, capped.height], [400, 300], "never larger than the original");
      const missing = await thumb("64x64");
      assert.equal(missing.status, 404);
      assert.match(((await missing.json()) as Envelope).error, /no 64x64 thumbnail/);
    });

    it("refuses an upload past the limit while it streams in", async () => {
      const answer = await upload(new Uint8Array(UPLOAD_LIMIT + 10));
      assert.equal(answer.status, 413);
      assert.match(answer.body.error, /larger than 2000000 bytes/);
      const anonymous = await fetch(`${platform.url}/file`, { method: "PUT", body: new FormData() });
      assert.equal(anonymous.status, 401);
    });
  });
}
