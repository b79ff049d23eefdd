import { Worker } from "node:worker_threads";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";

/** What a thread is started with: the work module's address and its `setup` data. */
export interface ThreadStart {
  module: string;
  setup: unknown;
}

export interface ThreadRequest {
  input: unknown;
}

export type ThreadFailure =
  /** A refusal the work itself made, kept as it was made. */
  | { kind: "platform"; code: ErrorCode; message: string; field: string | undefined }
  /** The document ran the thread out of stack or of the engine's sizes. */
  | { kind: "exhausted"; message: string }
  | { kind: "fault"; name: string; message: string; stack: string | undefined };

export type ThreadReply = { ok: true; value: unknown } | { ok: false; failure: ThreadFailure };

export interface DocumentThreadOptions {
  /**
   * The module the threads run. Its `work(input, state)` is a pure function of plain data (bytes
   * in, bytes out): no database, no broker, no storage, which stay with the caller.
   */
  module: URL;
  /** Handed to the module's optional `setup(data)` once per thread; what it answers is `state`. */
  setup?: unknown;
  /** Threads at most, each running one document at a time; more callers wait their turn. */
  threads: number;
  /** Heap of one thread, in MB: a document that needs more ends its thread and is refused. */
  heapMb: number;
  /** Longest one document may take; past it the thread is ended and the document refused. */
  timeoutMs: number;
  /** A thread idle this long is ended, giving its memory back; the last one is kept for the next document. */
  idleMs?: number;
  /** What the refusal calls the input, `the PDF` say. */
  subject: string;
}

export interface RunOptions {
  /**
   * Buffers of the input handed to the thread (see `ownBuffer`), after which the caller's views of
   * them are empty. Bytes not handed over are serialized, at a cost to the event loop.
   */
  transfer?: readonly ArrayBuffer[];
  /** Aborting ends the thread and rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Bytes that own the whole of their buffer, so that a message can hand the buffer over rather
 * than serialize it: these when they do (a file read whole), else a copy. Serializing 20 MB into
 * a message held the sending thread for a quarter to half a second; handing it over, not at all.
 */
export function ownBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const { buffer } = bytes;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength
    ? (bytes as Uint8Array<ArrayBuffer>)
    : new Uint8Array(bytes);
}

const ENTRY = new URL("./document-thread-start.mjs", import.meta.url);
const DEFAULT_IDLE_MS = 60_000;

type Settle = (reply: ThreadReply) => void;

/** The promise, or the signal's reason once it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** One thread and the document it works on, if any. */
class DocumentThread {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  private settle: Settle | undefined;
  private onStarted: (() => void) | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  ended = false;

  constructor(options: DocumentThreadOptions, onEnd: (thread: DocumentThread) => void) {
    this.worker = new Worker(ENTRY, {
      workerData: { module: options.module.href, setup: options.setup } satisfies ThreadStart,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb },
    });
    let started: () => void;
    let failed: (error: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    this.ready.catch(() => {});
    this.worker.on("message", (message: ThreadReply | { ready: true } | { started: true }) => {
      if ("ready" in message) started();
      else if ("started" in message) this.onStarted?.();
      else this.take()?.(message);
    });
    this.worker.on("error", (error: Error & { code?: string }) => {
      const failure: ThreadFailure =
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? { kind: "exhausted", message: `it needs more than ${options.heapMb} MB of memory` }
          : { kind: "fault", name: error.name, message: error.message, stack: error.stack };
      failed(error);
      this.take()?.({ ok: false, failure });
    });
    this.worker.on("exit", (code) => {
      this.ended = true;
      clearTimeout(this.idleTimer);
      failed(new Error(`the document thread exited (code ${code}) before it was ready`));
      this.take()?.({
        ok: false,
        failure: {
          kind: "fault",
          name: "Error",
          message: `the document thread exited (code ${code})`,
          stack: "",
        },
      });
      onEnd(this);
    });
  }

  /**
   * Hands a request to the thread; `started` hears when the work itself begins (what it needed
   * loaded is loaded), `settle` its one reply (or how the thread ended).
   */
  send(input: unknown, transfer: readonly ArrayBuffer[], started: () => void, settle: Settle): void {
    clearTimeout(this.idleTimer);
    this.worker.ref();
    this.onStarted = started;
    this.settle = settle;
    this.worker.postMessage({ input } satisfies ThreadRequest, [...transfer]);
  }

  /** Ends the thread, its document answered with `failure`. */
  end(failure: ThreadFailure): void {
    this.ended = true;
    void this.worker.terminate();
    this.take()?.({ ok: false, failure });
  }

  /** Waits for the next document; after `idleMs`, ends unless `keep` says otherwise. */
  idle(idleMs: number, keep: () => boolean): void {
    this.worker.unref();
    this.idleTimer = setTimeout(() => {
      if (!keep()) void this.worker.terminate();
    }, idleMs);
    this.idleTimer.unref();
  }

  private take(): Settle | undefined {
    const settle = this.settle;
    this.settle = undefined;
    this.onStarted = undefined;
    return settle;
  }
}

/**
 * CPU-heavy document work off the event loop: a few threads, each started once and kept for the
 * next document, with a heap cap and a time limit per document. A document that breaks either
 * ends its thread (the next one starts afresh) and is refused as too large or complex, the
 * caller's error, never retried.
 */
export class DocumentThreads<Input, Output> {
  private readonly idle: DocumentThread[] = [];
  private readonly all = new Set<DocumentThread>();
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(private readonly options: DocumentThreadOptions) {}

  async run(input: Input, options: RunOptions = {}): Promise<Output> {
    const { signal } = options;
    signal?.throwIfAborted();
    const thread = await this.acquire();
    try {
      await untilAborted(thread.ready, signal);
    } catch (error) {
      // A thread still starting goes on for the next document; one that failed to start is gone.
      if (!signal?.aborted) {
        thread.ended = true;
        void thread.worker.terminate();
      }
      this.release(thread);
      throw error;
    }
    const reply = await this.exchange(thread, input, options);
    this.release(thread);
    if (reply.ok) return reply.value as Output;
    throw this.errorOf(reply.failure);
  }

  /** Ends every thread; documents still in one are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.all].map((thread) => thread.worker.terminate()));
    this.idle.length = 0;
  }

  /** Back to the idle threads, or gone if it ended; either way the next caller waiting may go on. */
  private release(thread: DocumentThread): void {
    if (thread.ended) {
      this.all.delete(thread);
      this.replace();
    } else if (this.closed) void thread.worker.terminate();
    else {
      // The last thread stays: starting one takes far longer than most documents.
      thread.idle(this.options.idleMs ?? DEFAULT_IDLE_MS, () => this.all.size === 1);
      this.idle.push(thread);
    }
    this.waiting.shift()?.();
  }

  private async acquire(): Promise<DocumentThread> {
    for (;;) {
      if (this.closed) throw new Error("the document threads are closed");
      const idle = this.idle.pop();
      if (idle && !idle.ended) return idle;
      if (idle) continue;
      if (this.all.size < this.options.threads) return this.spawn();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private spawn(): DocumentThread {
    const thread = new DocumentThread(this.options, (ended) => {
      this.all.delete(ended);
      const at = this.idle.indexOf(ended);
      if (at >= 0) this.idle.splice(at, 1);
      // A place freed: someone waiting may start a thread of their own.
      this.waiting.shift()?.();
    });
    this.all.add(thread);
    return thread;
  }

  /**
   * A thread ended by its document is replaced at once when no other waits idle: starting one
   * takes longer than most documents, and the next caller should not wait for it.
   */
  private replace(): void {
    if (this.closed || this.idle.length > 0 || this.all.size >= this.options.threads) return;
    const spare = this.spawn();
    spare.ready.then(
      () => this.release(spare),
      () => {
        spare.ended = true;
        void spare.worker.terminate();
        this.all.delete(spare);
      },
    );
  }

  /** Sends the input and waits for the reply, ending the thread past the time limit or on abort. */
  private exchange(thread: DocumentThread, input: Input, options: RunOptions): Promise<ThreadReply> {
    return new Promise<ThreadReply>((resolve) => {
      const { signal } = options;
      let timer: NodeJS.Timeout | undefined;
      const finish = (reply: ThreadReply) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(reply);
      };
      // The document's time starts with its work, not with loading what it needs.
      const started = () => {
        timer = setTimeout(
          () =>
            thread.end({ kind: "exhausted", message: `it takes longer than ${this.options.timeoutMs} ms` }),
          this.options.timeoutMs,
        );
      };
      const onAbort = () =>
        thread.end({
          kind: "fault",
          name: "AbortError",
          message: signal?.reason instanceof Error ? signal.reason.message : "aborted",
          stack: undefined,
        });
      thread.send(input, options.transfer ?? [], started, finish);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private errorOf(failure: ThreadFailure): Error {
    if (failure.kind === "platform")
      return new PlatformError(failure.code, failure.message, { field: failure.field });
    if (failure.kind === "exhausted") {
      return new PlatformError(
        ErrorCode.InvalidArgument,
        `${this.options.subject} is too large or too complex to process: ${failure.message}`,
      );
    }
    const error = new Error(failure.message);
    error.name = failure.name;
    if (failure.stack) error.stack = failure.stack;
    return error;
  }
}
