import { readFile, writeFile } from "node:fs/promises";

/**
 * Run by `npm install` and `npm ci` (the `postinstall` script): corrects postgres.js's connection
 * queue in place, in its ES module and CommonJS copies. Each correction names the text it replaces;
 * a file that holds neither that text nor the correction (another version of the client) is left
 * as it is, with a warning, and test/platform/database-client-queue.test.ts then fails, so that an
 * upgrade is checked before it lands.
 *
 * The queue keeps a connection pool's busy connections in an array that `shift` leaves a hole in
 * and that empties only when `shift` takes its last element. While every connection is busy, the
 * pool sends each new query to the next busy connection (`shift`, then `push`), so the array grows
 * by one element a query for as long as the load lasts, and `remove`, run each time a connection
 * changes state, searches all of it. Five connections kept busy for 35 s fell from 27,000 trivial
 * queries a second to 7,500. Each connection's queries in flight are such a queue too, and under
 * that load it never drains, so its array only grows. With the correction, `remove` searches from
 * the first element still queued, and `shift` drops the holes once they are half the array; the
 * rate stays at 80,000.
 */
const QUEUE_FILES = ["node_modules/postgres/src/queue.js", "node_modules/postgres/cjs/src/queue.js"];

const QUEUE_CORRECTIONS: readonly { original: string; corrected: string }[] = [
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

async function correct(file: string): Promise<string> {
  let text = await readFile(file, "utf8");
  if (QUEUE_CORRECTIONS.every(({ corrected }) => text.includes(corrected))) return "already corrected";
  if (!QUEUE_CORRECTIONS.every(({ original }) => text.includes(original)))
    return "WARNING: not the queue this correction was written for; left unchanged";
  for (const { original, corrected } of QUEUE_CORRECTIONS) text = text.replace(original, corrected);
  await writeFile(file, text);
  return "corrected";
}

for (const file of QUEUE_FILES) console.log(`patch-dependencies: ${file}: ${await correct(file)}`);
