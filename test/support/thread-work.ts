import { threadId } from "node:worker_threads";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";

/** Work for document threads under test: each kind behaves as a document of some shape would. */
export type TestWork =
  | { kind: "echo"; bytes: Uint8Array }
  | { kind: "setup" }
  | { kind: "slow-load"; loadMs: number }
  | { kind: "allocate" }
  | { kind: "spin" }
  | { kind: "recurse" }
  | { kind: "refuse" }
  | { kind: "throw" };

export function setup(data: unknown): unknown {
  return data;
}

let loaded = false;

/** What a `slow-load` input needs takes `loadMs` to load, as a large library would. */
export async function prepare(input: TestWork): Promise<void> {
  if (input.kind !== "slow-load") return;
  await new Promise((resolve) => setTimeout(resolve, input.loadMs));
  loaded = true;
}

export function work(input: TestWork, state: unknown): unknown {
  switch (input.kind) {
    case "echo":
      return { bytes: input.bytes.map((byte) => byte + 1), length: input.bytes.length, thread: threadId };
    case "setup":
      return state;
    case "slow-load":
      return loaded ? "loaded" : "not loaded";
    case "allocate": {
      // Arrays that stay reachable: the heap grows until the cap ends the thread.
      const kept: number[][] = [];
      for (;;) kept.push(new Array(100_000).fill(kept.length));
    }
    case "spin":
      for (;;) {}
    case "recurse": {
      const down = (depth: number): number => down(depth + 1) + 1;
      return down(0);
    }
    case "refuse":
      throw new PlatformError(ErrorCode.Unprocessable, "refused as asked", { field: "file" });
    case "throw":
      throw new TypeError("a fault of the work's own");
  }
}
