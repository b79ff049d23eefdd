import { serve } from "@hono/node-server";
import { Hono } from "hono";

// The reference server of the gateway benchmarks: bare Hono routes and nothing else.
const app = new Hono().get("/healthz", (c) => c.json({ status: "ok" })).get("/text", (c) => c.text("ok"));
const server = serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: "127.0.0.1" }, () => {
  process.send?.("listening");
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
