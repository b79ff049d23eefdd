import * as nodeTest from "node:test";

/**
 * `describe`, `it` and the hooks of node:test, except that a suite given `{ skip: reason }` still
 * registers each of its tests, skipped with that reason, and runs none of its hooks. Node's own
 * skipped suite would hide its tests from the summary's count, so a machine without Postgres and
 * RabbitMQ would report "0 skipped" while half the suite never ran.
 */

type SuiteFn = () => void;
type TestOptions = nodeTest.TestOptions;
type TestFn = nodeTest.TestFn;

let skipping: string | undefined;

export function describe(name: string, options: { skip?: false | string }, fn: SuiteFn): void;
export function describe(name: string, fn: SuiteFn): void;
export function describe(name: string, second: { skip?: false | string } | SuiteFn, third?: SuiteFn): void {
  const fn = typeof second === "function" ? second : third!;
  const reason = typeof second === "function" ? undefined : second.skip || undefined;
  nodeTest.describe(name, () => {
    const outer = skipping;
    skipping = skipping ?? reason;
    try {
      fn();
    } finally {
      skipping = outer;
    }
  });
}

export function it(name: string, options: TestOptions, fn: TestFn): void;
export function it(name: string, fn: TestFn): void;
export function it(name: string, second: TestOptions | TestFn, third?: TestFn): void {
  const fn = typeof second === "function" ? second : third!;
  const options = typeof second === "function" ? {} : second;
  nodeTest.it(name, skipping ? { ...options, skip: skipping } : options, fn);
}

type HookFn = Parameters<typeof nodeTest.before>[0];

function hook(register: (fn: HookFn) => void) {
  return (fn: HookFn) => {
    if (!skipping) register(fn);
  };
}

export const before = hook((fn) => nodeTest.before(fn));
export const after = hook((fn) => nodeTest.after(fn));
export const beforeEach = hook((fn) => nodeTest.beforeEach(fn));
export const afterEach = hook((fn) => nodeTest.afterEach(fn));
