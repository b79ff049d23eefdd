import { readFile, writeFile } from "node:fs/promises";

/**
 * Run by `npm install` and `npm ci` (the `postinstall` script): corrects postgres.js 3.4.9 in place,
 * in its ES module and CommonJS copies. Each correction names the text it replaces; a file that
 * holds neither that text nor the correction (another version of the client) is left as it is,
 * with a warning, and test/platform/database-client-queue.test.ts then fails, so that an upgrade
 * is checked before it lands.
 *
 * The connection queue. The queue keeps a connection pool's busy connections in an array that `shift` leaves a hole in
 * and that empties only when `shift` takes its last element. While every connection is busy, the
 * pool sends each new query to the next busy connection (`shift`, then `push`), so the array grows
 * by one element a query for as long as the load lasts, and `remove`, run each time a connection
 * changes state, searches all of it. Five connections kept busy for 35 s fell from 27,000 trivial
 * queries a second to 7,500. Each connection's queries in flight are such a queue too, and under
 * that load it never drains, so its array only grows. With the correction, `remove` searches from
 * the first element still queued, and `shift` drops the holes once they are half the array; the
 * rate stays at 80,000.
 */
interface Correction {
  original: string;
  corrected: string;
}

const QUEUE_FILES = ["node_modules/postgres/src/queue.js", "node_modules/postgres/cjs/src/queue.js"];

const QUEUE_CORRECTIONS: readonly Correction[] = [
  {
    original: `const index = xs.indexOf(x)
      return index === -1
        ? null
        : (xs.splice(index, 1), x)`,
    corrected: `const at = xs.indexOf(x, index)
      return at === -1
        ? null
        : (xs.splice(at, 1), x)`,
  },
  {
    original: `      } else {
        xs[index - 1] = undefined
      }`,
    corrected: `      } else if (index >= 64 && index * 2 >= xs.length) {
        xs = xs.slice(index)
        index = 0
      } else {
        xs[index - 1] = undefined
      }`,
  },
];

/**
 * The connection's deferred write. A write of less than 1 KB waits for the end of the loop's turn
 * (`setImmediate(nextWrite)`); when the connection closed meanwhile (Postgres restarted, the
 * backend ended), `nextWrite` wrote to the socket `closed()` had set to null, and its TypeError,
 * thrown from the immediate, out of every caller's reach, ended the whole process
 * (porsager/postgres#1154, #1176). It happened to a worker relaying the outbox while Postgres
 * restarted. Corrected: a write that finds no socket is dropped; `closed()` has already refused the
 * queries the connection held, and the pool reconnects for the next.
 */
const CONNECTION_FILES = [
  "node_modules/postgres/src/connection.js",
  "node_modules/postgres/cjs/src/connection.js",
];

const CONNECTION_CORRECTIONS: readonly Correction[] = [
  {
    original: `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`,
    corrected: `  function nextWrite(fn) {
    if (!socket) {
      chunk = nextWriteTimer = null
      return false
    }
    const x = socket.write(chunk, fn)`,
  },
];

async function correct(file: string, corrections: readonly Correction[]): Promise<string> {
  let text = await readFile(file, "utf8");
  if (corrections.every(({ corrected }) => text.includes(corrected))) return "already corrected";
  if (!corrections.every(({ original }) => text.includes(original)))
    return "WARNING: not the code this correction was written for; left unchanged";
  for (const { original, corrected } of corrections) text = text.replace(original, corrected);
  await writeFile(file, text);
  return "corrected";
}

for (const [files, corrections] of [
  [QUEUE_FILES, QUEUE_CORRECTIONS],
  [CONNECTION_FILES, CONNECTION_CORRECTIONS],
] as const) {
  for (const file of files) console.log(`patch-dependencies: ${file}: ${await correct(file, corrections)}`);
}
