import { spawn } from "node:child_process";

/** Runs the admin CLI (`npm run admin -- …`) on an embedded data directory: its exit code and what it printed. */
export function adminCli(
  dataDir: string,
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bin/admin.ts", ...args], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: "error" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}
