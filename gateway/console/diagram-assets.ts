import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type ConsoleApp, consolePage, errorPage } from "./console-page.ts";

const require = createRequire(import.meta.url);

/** The files a diagram page loads, by the name the console serves them under. */
const ASSETS: Record<string, { file: string; type: string }> = {
  "bpmn-viewer.js": {
    file: require.resolve("bpmn-js/dist/bpmn-viewer.production.min.js"),
    type: "text/javascript; charset=utf-8",
  },
  "diagram-js.css": {
    file: require.resolve("bpmn-js/dist/assets/diagram-js.css"),
    type: "text/css; charset=utf-8",
  },
  "bpmn-js.css": {
    file: require.resolve("bpmn-js/dist/assets/bpmn-js.css"),
    type: "text/css; charset=utf-8",
  },
  "workflow-diagram.js": {
    file: new URL("./workflow-diagram.js", import.meta.url).pathname,
    type: "text/javascript; charset=utf-8",
  },
};

/** Where the console serves them: the platform itself, so a machine without internet draws too. */
export const ASSET_PATH = "/console/static";

/**
 * The bpmn-js viewer, its styles and the script that draws a page's diagram, read once when first
 * asked for. The browser keeps them and asks each time whether they changed (an upgrade of the
 * platform changes them): a page after the first costs a 304, not the viewer's 186 KB again.
 */
export function diagramAssets(app: ConsoleApp) {
  const read = new Map<string, { body: string; etag: string }>();
  consolePage(app, "/static/:name", {
    get: (c) => {
      const name = c.req.param("name") ?? "";
      const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
      if (!asset) return errorPage(c, 404, `There is no console file ${name}.`);
      let file = read.get(asset.file);
      if (file === undefined) {
        const body = readFileSync(asset.file, "utf8");
        file = { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
        read.set(asset.file, file);
      }
      const headers = { "cache-control": "private, no-cache", etag: file.etag };
      if (c.req.header("if-none-match") === file.etag) return c.body(null, 304, headers);
      return c.body(file.body, 200, { ...headers, "content-type": asset.type });
    },
  });
}
