import { request } from "undici";
import { issueToken } from "../../test/support/tokens.ts";
import { type BenchCase, type BenchResult, ratioAtMost } from "../bench-result.ts";
import { benchGateway, benchScratch } from "../bench-scratch.ts";
import { deployWorkflow } from "../deploy-workflow.ts";
import { percentile } from "../statistics.ts";

const PORT = 18_995;
const ADMIN_TOKEN = "bench-console-admin-token-0123456789abcdef";
const SECRET = "bench-console-secret-0123456789abcdefghijk";
/** The activities of the large process, and of the small one the reference page shows. */
const LARGE = 1_000;
const SMALL = 10;
/** Page loads timed of each, alternating, after as many untimed. */
const LOADS = 100;
/** The large page at most this many times the small one: the page reads a bounded part of a process. */
const PAGE_RATIO = 2;

/** Starts a process of `review` for the owner through 3.2; answers its id. */
async function startProcess(url: string, token: string): Promise<string> {
  const response = await fetch(`${url}/apis/v2/process`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ code: "review", userId: "owner" }),
  });
  const body = (await response.json()) as { errno: number; error: string; entities: unknown[] };
  if (body.errno !== 0) throw new Error(`start: ${body.error}`);
  return (body.entities[3] as { process: { id: string } }).process.id;
}

export const consoleProcessPageBench: BenchCase = {
  name: "console",
  description: `the operator console's process page of a process with ${LARGE} activities, against the page of one with ${SMALL}`,
  async run(): Promise<BenchResult[]> {
    const scratch = await benchScratch({
      tenants: [{ domain: "console.edu", name: "Console" }],
      applications: [
        {
          id: "console-app",
          secret: SECRET,
          name: "Console",
          type: "enterprise",
          tenant: "console.edu",
          scopes: ["sys_start"],
        },
      ],
      users: [
        { tenant: "console.edu", account: "owner", name: "Owner" },
        { tenant: "console.edu", account: "reviewer", name: "Reviewer" },
      ],
    });
    const { sql, client, url, close } = await benchGateway(PORT, scratch, { ADMIN_TOKEN });
    try {
      await deployWorkflow(
        url,
        ADMIN_TOKEN,
        { domain: "console.edu", code: "review" },
        {
          definition: {
            graph: {
              nodes: [
                { kind: "start", code: "apply" },
                { kind: "task", code: "check", assignees: [{ accounts: ["reviewer"] }] },
                { kind: "end", code: "done" },
              ],
              edges: [
                { from: "apply", to: "check" },
                { from: "check", to: "done" },
              ],
            },
          },
          online: true,
          app: { name: "Review" },
        },
      );
      const token = await issueToken(
        url,
        { id: "console-app", secret: SECRET },
        { grant_type: "client_credentials" },
      );
      const large = await startProcess(url, token);
      const small = await startProcess(url, token);
      for (const [id, count] of [
        [large, LARGE],
        [small, SMALL],
      ] as const) {
        await sql`
          insert into workflow_activities (tenant_id, test, process_id, entry, app_id, category, level, description)
          select p.tenant_id, p.test, p.id, p.entry, p.app_id, 'INSTANCE', 'INFO', 'note ' || n
          from workflow_processes p, generate_series(1, ${count}) n where p.id = ${id}`;
      }
      await sql`analyze`;

      const signedIn = await fetch(`${url}/console/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: ADMIN_TOKEN }),
        redirect: "manual",
      });
      await signedIn.body?.cancel();
      const cookie = signedIn.headers.get("set-cookie")?.split(";")[0];
      if (!cookie) throw new Error(`console sign-in answered ${signedIn.status}`);

      const load = async (id: string) => {
        const before = performance.now();
        const response = await request(`${url}/console/workflows/processes/${id}`, {
          dispatcher: client,
          headers: { cookie },
        });
        const text = await response.body.text();
        if (response.statusCode !== 200 || !text.includes("note ")) {
          throw new Error(`the process page answered ${response.statusCode}`);
        }
        return performance.now() - before;
      };
      const times = { large: [] as number[], small: [] as number[] };
      for (let round = 0; round < 2 * LOADS; round++) {
        const [largeTime, smallTime] = [await load(large), await load(small)];
        if (round >= LOADS) {
          times.large.push(largeTime);
          times.small.push(smallTime);
        }
      }
      return [
        ratioAtMost(
          "console.process-page-1000-activities-p99",
          "ms",
          percentile(times.large, 99),
          percentile(times.small, 99),
          PAGE_RATIO,
          { absoluteTarget: 200 },
        ),
      ];
    } finally {
      await close();
    }
  },
};
