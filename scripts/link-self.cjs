#!/usr/bin/env node
// Links node_modules/cpln-pulumi to this checkout, so the examples (which `import "cpln-pulumi"`) and the
// serialized dynamic providers (which `require("cpln-pulumi/dist/...")`) resolve the package exactly as they
// do in a user's project where it is installed from npm. Also links the package's own bins and cpln-local's,
// because `npx cpln-local` in a checkout looks only in node_modules/.bin.
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const modules = path.join(root, "node_modules");
if (!fs.existsSync(modules)) process.exit(0);

function linkTo(target, link) {
  try {
    if (fs.readlinkSync(link) === target) return;
  } catch {
    // absent or not a link: (re)create below
  }
  fs.rmSync(link, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(target, link);
}

linkTo("..", path.join(modules, "cpln-pulumi"));
const { bin } = require(path.join(root, "package.json"));
// cpln-local is its own package (scripts/release-packages.mjs assembles it from this build); a checkout links its bin.
for (const [name, file] of Object.entries({ ...bin, "cpln-local": "dist/server/cli.js" })) {
  fs.chmodSync(path.join(root, file), 0o755);
  linkTo(path.join("..", "cpln-pulumi", file), path.join(modules, ".bin", name));
}
