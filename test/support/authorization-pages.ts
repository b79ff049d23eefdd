/** A browser's walk through the login and consent pages, over plain HTTP: its cookie and request id. */
export class AuthorizationPages {
  private constructor(
    private readonly baseUrl: string,
    private readonly cookie: string,
    readonly requestId: string,
  ) {}

  /** Opens `/oauth2/authorize` with these parameters; the first page must be the login form. */
  static async open(baseUrl: string, params: Record<string, string>): Promise<AuthorizationPages> {
    const response = await fetch(`${baseUrl}/oauth2/authorize?${new URLSearchParams(params)}`);
    if (response.status !== 200)
      throw new Error(`authorize answered ${response.status}: ${await response.text()}`);
    const cookie = response.headers.get("set-cookie")!.split(";")[0]!;
    const requestId = /name="request" value="([^"]+)"/.exec(await response.text())![1]!;
    return new AuthorizationPages(baseUrl, cookie, requestId);
  }

  /**
   * Submits the login form, with `headers` besides the form's (`X-Forwarded-For`, say); returns the
   * page that follows (consent, or login again with an error).
   */
  async signIn(
    username: string,
    password: string,
    options: { withCookie?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    return this.post("login", { username, password }, options.withCookie ?? true, options.headers);
  }

  /** Submits the consent form; returns where the browser is sent. */
  async decide(decision: "allow" | "deny"): Promise<URL> {
    const response = await this.post("consent", { decision }, true);
    if (response.status !== 302) throw new Error(`consent answered ${response.status}`);
    return new URL(response.headers.get("location")!);
  }

  private post(
    page: "login" | "consent",
    fields: Record<string, string>,
    withCookie: boolean,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return fetch(`${this.baseUrl}/oauth2/authorize/${page}`, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/x-www-form-urlencoded",
        ...(withCookie ? { cookie: this.cookie } : {}),
      },
      body: new URLSearchParams({ request: this.requestId, ...fields }),
      redirect: "manual",
    });
  }
}
