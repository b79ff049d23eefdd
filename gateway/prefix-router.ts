import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";

function smartRouter<T>(): Router<T> {
  return new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });
}

/**
 * Two routers, one for the paths under `prefix` and one for the rest. Hono's RegExpRouter, which
 * matches a request in one regular expression, cannot take a fixed segment beside a parameter at
 * the same place (spec 001's `/process/{id}/{cate}` beside `/process/{id}/data`), and a single
 * router holding such a pair falls back to the slower TrieRouter for every request. Split at the
 * workflow API's prefix, only its own requests pay for that; the other surfaces keep the
 * RegExpRouter. A route whose first segment is a parameter or a wildcard (middleware on `*`) goes
 * into both, in the order it was added, so each request sees the same handlers in the same order
 * as in one router.
 */
export class PrefixRouter<T> implements Router<T> {
  readonly #prefix: string;
  readonly #inside = smartRouter<T>();
  readonly #outside = smartRouter<T>();

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  get name(): string {
    return `PrefixRouter(${this.#prefix}: ${this.#inside.name}; else ${this.#outside.name})`;
  }

  add(method: string, path: string, handler: T): void {
    const first = path.startsWith("/") ? path.split("/", 2)[1]! : path;
    const literal = !/[:*?{]/.test(first);
    if (!literal || `/${first}` === this.#prefix) this.#inside.add(method, path, handler);
    if (!literal || `/${first}` !== this.#prefix) this.#outside.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const inside =
      path.startsWith(this.#prefix) &&
      (path.length === this.#prefix.length || path[this.#prefix.length] === "/");
    return (inside ? this.#inside : this.#outside).match(method, path);
  }
}
