#!/usr/bin/env node
// Links node_modules/cpln-pulumi to this checkout, so the examples (which `import "cpln-pulumi"`) and the
// serialized dynamic providers (which `require("cpln-pulumi/dist/...")`) resolve the package exactly as they
// do in a user's project where it is installed from npm.
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const link = path.join(root, "node_modules", "cpln-pulumi");
if (!fs.existsSync(path.join(root, "node_modules"))) process.exit(0);
try {
  if (fs.readlinkSync(link) === "..") process.exit(0);
  fs.rmSync(link, { recursive: true, force: true });
} catch {
  // absent or not a link: (re)create below
}
fs.symlinkSync("..", link, "dir");
