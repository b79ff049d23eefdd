import { Worker } from "node:worker_threads";

/**
 * SHA-1 and SHA-256 of streams, computed on a worker thread so that hashing an upload (about a
 * fifth of a second per 100 MB) runs beside the request handling instead of inside it. One
 * thread serves every upload of the process; each upload is a session of chunks in order.
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { createHash } = require("node:crypto");
const sessions = new Map();
parentPort.on("message", ({ id, chunk, end, ping }) => {
  if (ping !== undefined) return parentPort.postMessage({ id, pong: ping });
  let session = sessions.get(id);
  if (!session) sessions.set(id, (session = { sha1: createHash("sha1"), sha256: createHash("sha256") }));
  if (chunk) {
    session.sha1.update(chunk);
    session.sha256.update(chunk);
  }
  if (end) {
    sessions.delete(id);
    if (end === "digest") parentPort.postMessage({ id, sha1: session.sha1.digest("hex"), sha256: session.sha256.digest("hex") });
  }
});
`;

/** Bytes of an upload that may wait for the hashing thread before the upload itself waits. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

interface Digests {
  sha1: string;
  sha256: string;
}

let worker: Worker | undefined;
let nextId = 0;
/** Sessions in progress: the thread holds the process open only while one is. */
let active = 0;

function session(change: 1 | -1): void {
  active += change;
  if (active === 1 && change === 1) worker?.ref();
  if (active === 0) worker?.unref();
}
const waiting = new Map<number, (digests: Digests) => void>();
const caughtUp = new Map<number, () => void>();

function hashingWorker(): Worker {
  if (worker) return worker;
  worker = new Worker(WORKER_SOURCE, { eval: true });
  worker.on("message", ({ id, sha1, sha256, pong }: Digests & { id: number; pong?: number }) => {
    if (pong !== undefined) {
      caughtUp.get(id)?.();
      caughtUp.delete(id);
      return;
    }
    waiting.get(id)?.({ sha1, sha256 });
    waiting.delete(id);
  });
  worker.on("error", () => {
    worker = undefined;
  });
  return worker;
}

export interface ContentHashing {
  /** Hands a chunk over; resolves at once, or once the thread has caught up when it lags behind. */
  update(chunk: Buffer): Promise<void>;
  digest(): Promise<Digests>;
  /** Forgets the session (the upload failed). */
  abandon(): void;
}

export function hashContent(): ContentHashing {
  const id = nextId++;
  const thread = hashingWorker();
  session(1);
  let pending = 0;
  return {
    async update(chunk) {
      thread.postMessage({ id, chunk });
      pending += chunk.length;
      if (pending < MAX_PENDING_BYTES) return;
      await new Promise<void>((resolve) => {
        caughtUp.set(id, resolve);
        thread.postMessage({ id, ping: pending });
      });
      pending = 0;
    },
    digest() {
      return new Promise((resolve) => {
        waiting.set(id, (digests) => {
          session(-1);
          resolve(digests);
        });
        thread.postMessage({ id, end: "digest" });
      });
    },
    abandon() {
      waiting.delete(id);
      caughtUp.delete(id);
      session(-1);
      thread.postMessage({ id, end: "abandon" });
    },
  };
}
