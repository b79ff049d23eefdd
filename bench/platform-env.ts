/** Where benchmarks find the services, and how they start the platform's processes. */
export const DATABASE_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
export const AMQP_URL = process.env.AMQP_URL || "amqp://guest:guest@127.0.0.1:5672";
export const PLATFORM_SERVER = new URL("./servers/platform.ts", import.meta.url);

/** The environment of a benchmarked platform process: its data directory, database and bootstrap. */
export function platformEnv(
  dataDir: string,
  databaseUrl: string,
  bootstrapFile: string,
): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn",
    DATABASE_URL: databaseUrl,
    AMQP_URL,
    BOOTSTRAP_FILE: bootstrapFile,
  };
}
