import assert from "node:assert/strict";

/** Spec 001's answer: `errno` 0 on success, the entities, and the full count for lists. */
export interface Envelope<T = Record<string, unknown>> {
  errno: number;
  ecode: string;
  error: string;
  total: number;
  entities: T[];
}

export type Params = Record<string, string>;

/**
 * Calls the workflow API of a running platform the way a client written from spec 001 does:
 * parameters in the query, the token as a bearer, on `/apis/v2` unless another base is given.
 */
export class WorkflowClient {
  constructor(
    private readonly baseUrl: () => string,
    private readonly adminToken: string,
  ) {}

  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    token: string,
    params: Params = {},
    base = "/apis/v2",
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Envelope<T> }> {
    const query = new URLSearchParams(params).toString();
    const response = await fetch(`${this.baseUrl()}${base}${path}${query ? `?${query}` : ""}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...headers },
      signal: AbortSignal.timeout(10_000),
    }).catch((error) => {
      throw new Error(`${method} ${path}: ${error}`);
    });
    return { status: response.status, body: (await response.json()) as Envelope<T> };
  }

  /** A call that must succeed: HTTP 200 and errno 0. */
  async ok<T = Record<string, unknown>>(
    method: string,
    path: string,
    token: string,
    params: Params = {},
    base?: string,
  ): Promise<Envelope<T>> {
    const { status, body } = await this.call<T>(method, path, token, params, base);
    assert.equal(status, 200, `${method} ${path}: ${JSON.stringify(body)}`);
    assert.equal(body.errno, 0, `${method} ${path}: ${body.ecode} ${body.error}`);
    return body;
  }

  /** Deploys a version of a workflow through the admin API (the body as the operator sends it). */
  deploy(domain: string, code: string, body: unknown): Promise<Response> {
    return fetch(`${this.baseUrl()}/admin/workflows/${domain}/${code}/versions`, {
      method: "PUT",
      headers: { authorization: `Bearer ${this.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  /** Makes the departments and posts, and gives each account its position, through 5.x and 6.x. */
  async placeInDirectory(
    token: string,
    positions: readonly (readonly [account: string, dept: string, post: string])[],
  ): Promise<void> {
    for (const dept of new Set(positions.map(([, dept]) => dept)))
      await this.ok("PUT", "/triple/dept", token, { code: dept, name: dept });
    for (const post of new Set(positions.map(([, , post]) => post)))
      await this.ok("PUT", "/triple/post", token, { code: post, name: post });
    for (const [account, dept, post] of positions)
      await this.ok("PUT", `/position/${dept}:${post}/users`, token, { code: account });
  }
}
