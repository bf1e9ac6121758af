// What a program using `cpln-pulumi/native` loads, since every `pulumi up` of it pays for it in a fresh process:
// constructing the native classes loads neither the provider's registry nor zod (a class takes its output names and
// secret outputs from schema.json, sdk/native/resource.ts), and every instance still carries each output of its type
// as an Output, with the type's secret outputs in `additionalSecretOutputs`. The child runs on the compiled dist/
// (run `npm run build` first) under Pulumi's mocks, in a fresh `node` (this test's worker has loaded everything).
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { resources } from "../../provider/index.js";
import { resourceTypeNames } from "../../provider/resources/typeNames.js";
import { repoRoot } from "./support.js";

interface Seen {
  zodLoaded: boolean;
  registryLoaded: boolean;
  /** Per type: the instance's properties that are Outputs, and the secret outputs it registered with. */
  types: Record<string, { outputs: string[]; secretOutputs: string[] }>;
}

const child = `
const path = require("node:path");
const pulumi = require("@pulumi/pulumi");
const registered = {};
pulumi.runtime.setMocks(
  { newResource: (args) => ({ id: args.name + "-id", state: args.inputs }), call: () => ({}) },
  "project", "stack", false,
);
const native = require("./dist/sdk/native/index.js");
const { nativeResourceOptions } = require("./dist/sdk/native/resource.js");
const types = {};
for (const typeName of JSON.parse(process.argv[1])) {
  const instance = new native[typeName]("x-" + typeName, {});
  types[typeName] = {
    outputs: Object.keys(instance).filter((key) => pulumi.Output.isInstance(instance[key]) && !["urn", "id", "__logicalName"].includes(key)),
    secretOutputs: nativeResourceOptions(typeName).additionalSecretOutputs ?? [],
  };
}
const loaded = Object.keys(require.cache);
process.stdout.write(JSON.stringify({
  zodLoaded: loaded.some((file) => file.includes(path.sep + "zod" + path.sep)),
  registryLoaded: loaded.some((file) => file.endsWith(path.join("dist", "provider", "index.js"))),
  types,
}));
`;

function seen(): Seen {
  const result = spawnSync(process.execPath, ["-e", child, JSON.stringify(resourceTypeNames)], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: 120_000,
  });
  if (result.status !== 0) throw new Error(`the child failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as Seen;
}

describe("what a program of the native classes loads", () => {
  const loaded = seen();

  it("constructs every native class without loading zod or the provider's registry", () => {
    expect(Object.keys(loaded.types).sort()).toEqual([...resourceTypeNames].sort());
    expect(loaded.zodLoaded).toBe(false);
    expect(loaded.registryLoaded).toBe(false);
  });

  it("gives every instance each output of its type as an Output, and registers the type's secret outputs", () => {
    for (const typeName of resourceTypeNames) {
      const definition = resources[typeName] as { outputs(): { shape: object }; secretOutputs?: readonly string[] };
      expect({ typeName, outputs: [...loaded.types[typeName]!.outputs].sort() }).toEqual({
        typeName,
        outputs: Object.keys(definition.outputs().shape).sort(),
      });
      expect({ typeName, secret: [...loaded.types[typeName]!.secretOutputs].sort() }).toEqual({
        typeName,
        secret: [...(definition.secretOutputs ?? [])].sort(),
      });
    }
  });
});
