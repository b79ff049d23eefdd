import { parentPort, workerData } from "node:worker_threads";
import { isPlatformError } from "../contracts/errors.ts";
import type { ThreadFailure, ThreadReply, ThreadRequest, ThreadStart } from "./document-thread.ts";

/**
 * The inside of a document thread: loads the work module it was started for, runs its `setup`
 * once, then answers one request at a time with what its `work` returns. A module's `prepare`
 * loads what only some inputs need (a library), before the document's time starts.
 */
interface WorkModule {
  setup?(data: unknown): unknown;
  prepare?(input: unknown, state: unknown): unknown;
  work(input: unknown, state: unknown): unknown;
}

const start = workerData as ThreadStart;
const port = parentPort!;
const module = (await import(start.module)) as WorkModule;
const state = await module.setup?.(start.setup);

port.on("message", async (request: ThreadRequest) => {
  let reply: ThreadReply;
  let transfer: ArrayBuffer[] = [];
  try {
    await module.prepare?.(request.input, state);
    port.postMessage({ started: true });
    const result = handedOver(await module.work(request.input, state));
    reply = { ok: true, value: result.value };
    transfer = result.transfer;
  } catch (error) {
    reply = { ok: false, failure: failureOf(error) };
  }
  try {
    port.postMessage(reply, transfer);
  } catch (error) {
    port.postMessage({ ok: false, failure: failureOf(error) } satisfies ThreadReply);
  }
});
port.postMessage({ ready: true });

/**
 * What the caller learns of a throw. A RangeError is the document's doing, not ours: its nesting
 * ran the stack out, or its sizes asked for an array or a string longer than the engine makes.
 * Libraries that wrap errors of their own keep only the text of a stack overflow.
 */
function failureOf(error: unknown): ThreadFailure {
  if (isPlatformError(error)) {
    return { kind: "platform", code: error.code, message: error.message, field: error.field };
  }
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes("Maximum call stack size exceeded")) {
    return { kind: "exhausted", message: "its objects nest too deeply" };
  }
  if (error instanceof RangeError) return { kind: "exhausted", message: `it asks for too much (${message})` };
  return {
    kind: "fault",
    name: error instanceof Error ? error.name : "Error",
    message,
    stack: error instanceof Error ? error.stack : undefined,
  };
}

/**
 * The result with its byte arrays (the result itself, or its fields) in buffers of their own,
 * and those buffers, to hand over rather than serialize: the copy, if one is needed, costs this
 * thread a few milliseconds, where serializing would cost the receiving one far more.
 */
function handedOver(value: unknown): { value: unknown; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const own = (candidate: unknown) => {
    if (!(candidate instanceof Uint8Array)) return candidate;
    const { buffer } = candidate;
    const owned =
      buffer instanceof ArrayBuffer &&
      candidate.byteOffset === 0 &&
      candidate.byteLength === buffer.byteLength &&
      !transfer.includes(buffer)
        ? candidate
        : new Uint8Array(candidate);
    transfer.push(owned.buffer as ArrayBuffer);
    return owned;
  };
  if (value instanceof Uint8Array) return { value: own(value), transfer };
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const fields = Object.entries(value).map(([key, field]) => [key, own(field)]);
    return { value: Object.fromEntries(fields), transfer };
  }
  return { value, transfer };
}
