#!/usr/bin/env node
// Bundles the console (console/src, Preact) into dist/console/: app.js (minified, no source from the network at run
// time), app.css, icon.svg and index.html. `npm run build` runs it after tsc; the server serves exactly these four files.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "console");
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(root, "console", "src", "main.tsx")],
  outfile: join(out, "app.js"),
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  logLevel: "warning",
});
for (const file of ["index.html", "app.css", "icon.svg"]) copyFileSync(join(root, "console", file), join(out, file));
