import assert from "node:assert/strict";
import { test } from "node:test";
import { type FeedEnvelope, FeedFormatError, feedEntities } from "../../workers/feed/feed-response-stream.ts";

const encoder = new TextEncoder();

async function* inChunks(bytes: Uint8Array, sizes: () => number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; ) {
    const end = Math.min(bytes.length, at + sizes());
    yield bytes.subarray(at, end);
    at = end;
  }
}

async function* splitAt(bytes: Uint8Array, ...cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.subarray(at, cut);
    at = cut;
  }
}

async function read(body: AsyncIterable<Uint8Array>, options?: { maxEntityBytes?: number }) {
  const entities: unknown[] = [];
  const iterator = feedEntities(body, options);
  for (;;) {
    const step = await iterator.next();
    if (step.done) return { entities, envelope: step.value };
    entities.push(step.value);
  }
}

const readText = (text: string, options?: { maxEntityBytes?: number }) =>
  read(splitAt(encoder.encode(text)), options);

function expected(text: string): { entities: unknown[]; envelope: FeedEnvelope } {
  const whole = JSON.parse(text);
  return {
    entities: whole.entities ?? [],
    envelope: { errno: whole.errno ?? null, error: whole.error ?? null, total: whole.total ?? null },
  };
}

/** A seeded generator, so a failing chunking can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

const TRICKY = JSON.stringify({
  meta: { page: [1, { "}": "]" }], note: '{["\\' },
  entities: [
    { id: 1, name: "张三", memo: 'braces } { and brackets ] [ and "quotes" and \\ backslashes \\"' },
    { id: 2, name: "😀 emoji 🏭", nested: { list: [[], [{}], { "\\": "\\\\" }], empty: "" } },
    42,
    null,
    "a string entity with ] and }",
    [true, false, -1.5e3],
    { id: 3, 名称: "工厂 \u2028 \n\t" },
  ],
  total: 7,
  error: "",
  errno: 0,
})
  .replace('"entities":[', ' "entities" :\n [ \r\n')
  .replace(/,/g, " , ");

test("yields the entities in order, then the envelope", async () => {
  const text = '{"errno":0,"error":"","entities":[{"id":"a"},{"id":"b"},{"id":"c"}],"total":3}';
  assert.deepEqual(await readText(text), {
    entities: [{ id: "a" }, { id: "b" }, { id: "c" }],
    envelope: { errno: 0, error: "", total: 3 },
  });
});

test("any split into two chunks reads the same as JSON.parse of the whole", async () => {
  const bytes = encoder.encode(TRICKY);
  const want = expected(TRICKY);
  assert.equal(want.entities.length, 7);
  for (let cut = 0; cut <= bytes.length; cut++) {
    assert.deepEqual(await read(splitAt(bytes, cut)), want, `split at byte ${cut}`);
  }
  assert.deepEqual(await read(inChunks(bytes, () => 1)), want, "one byte a chunk");
});

test("a large feed in random chunk sizes reads the same as JSON.parse of the whole", async () => {
  const next = random(7);
  const entities = Array.from({ length: 3000 }, (_, id) => ({
    id,
    name: `企业 ${id} 🚀 "quoted" \\ {${"x".repeat(Math.floor(next() * 300))}]`,
    tags: id % 5 === 0 ? [] : [{ level: id % 3, flags: [true, null, id / 7] }],
  }));
  const text = JSON.stringify({ total: entities.length, entities, errno: 0, error: "" }, null, 2);
  for (const seed of [1, 2, 3]) {
    const sizes = random(seed);
    const chunked = inChunks(encoder.encode(text), () => 1 + Math.floor(sizes() ** 3 * 20_000));
    assert.deepEqual(await read(chunked), expected(text), `seed ${seed}`);
  }
});

test("errno after entities, unknown keys and escaped key names are read like JSON.parse reads them", async () => {
  const text =
    '{"x":{"entities":[9]},"y":[["entities"]],"z":"entities","entit\\u0069es":[{"a":1}],"errno":"0","total":null}';
  assert.deepEqual(await readText(text), {
    entities: [{ a: 1 }],
    envelope: { errno: null, error: null, total: null },
  });
  assert.deepEqual(await readText(' {"errno": 3, "error": "busy"} '), {
    entities: [],
    envelope: { errno: 3, error: "busy", total: null },
  });
  assert.deepEqual(await readText('{"entities":[]}'), {
    entities: [],
    envelope: { errno: null, error: null, total: null },
  });
});

const FAULTS: [string, string, RegExp][] = [
  ["an empty body", "  ", /empty/],
  ["an array", "[1,2]", /not a JSON object/],
  ["a string", '"entities"', /not a JSON object/],
  ["a body cut in an entity", '{"entities":[{"a":"}', /ends before its end/],
  ["a body cut after the entities", '{"entities":[],"errno":0', /ends before its end/],
  ["a body cut in a scalar entity", '{"entities":[12', /ends before its end/],
  ["invalid JSON in an entity", '{"entities":[{"a":1},{"a":}]}', /invalid JSON in entity 2/],
  ["invalid JSON in a scalar entity", '{"entities":[1,tru]}', /invalid JSON in entity 2/],
  ["mismatched brackets", '{"entities":[{"a":[1}]]}', /invalid JSON in entity 1/],
  ["a missing comma", '{"entities":[1 2]}', /comma is missing/],
  ["a trailing comma", '{"entities":[1,]}', /comma before the end/],
  ["a stray comma", '{"entities":[,1]}', /stray comma/],
  ["invalid JSON outside entities", '{"errno":,"entities":[]}', /invalid JSON in the feed answer outside/],
  ["an object for entities", '{"entities":{"a":1}}', /entities is not an array/],
  ["null for entities", '{"entities" : null}', /entities is not an array/],
  ["entities twice", '{"entities":[],"entities":[]}', /entities twice/],
  ["data after the object", '{"entities":[]} {}', /goes on after its end/],
  ["a big skeleton", `{"note":"${"n".repeat(70_000)}","entities":[]}`, /passes 65536 bytes outside/],
  ["invalid UTF-8", '{"entities":["\xff"]}', /invalid JSON in entity 1/],
];

for (const [what, text, message] of FAULTS) {
  test(`throws FeedFormatError for ${what}`, async () => {
    const bytes = what === "invalid UTF-8" ? Buffer.from(text, "latin1") : encoder.encode(text);
    await assert.rejects(read(splitAt(bytes, bytes.length >> 1)), (error: unknown) => {
      assert.ok(error instanceof FeedFormatError, String(error));
      assert.match(error.message, message);
      return true;
    });
  });
}

test("entities before a fault are yielded whatever the chunking", async () => {
  const bytes = encoder.encode('{"entities":[{"a":1},"b",3 4]}');
  for (let cut = 0; cut <= bytes.length; cut++) {
    const seen: unknown[] = [];
    const reading = (async () => {
      for await (const entity of feedEntities(splitAt(bytes, cut))) seen.push(entity);
    })();
    await assert.rejects(reading, /comma is missing/);
    assert.deepEqual(seen, [{ a: 1 }, "b", 3], `split at byte ${cut}`);
  }
});

test("an entity over the limit throws before the rest of it is read", async () => {
  const exact = `{"entities":[${JSON.stringify({ pad: "p".repeat(90) })}]}`;
  assert.equal((await readText(exact, { maxEntityBytes: 100 })).entities.length, 1);
  await assert.rejects(readText(exact, { maxEntityBytes: 99 }), /an entity passes 99 bytes/);

  let sent = 0;
  async function* oversized(): AsyncGenerator<Uint8Array> {
    yield encoder.encode('{"entities":[{"ok":true},{"blob":"');
    const filler = encoder.encode("q".repeat(64 * 1024));
    // Far more than the limit, but finite, so a missing check fails the test instead of hanging it.
    while (sent < 16 * 1024 * 1024) {
      sent += filler.length;
      yield filler;
    }
  }
  const seen: unknown[] = [];
  await assert.rejects(
    (async () => {
      for await (const entity of feedEntities(oversized())) seen.push(entity);
    })(),
    (error: unknown) => error instanceof FeedFormatError && /passes 1048576 bytes/.test(error.message),
  );
  assert.deepEqual(seen, [{ ok: true }]);
  assert.ok(sent <= 1024 * 1024 + 64 * 1024, `read ${sent} bytes`);
});
