/**
 * The program of `bench/engine.ts`: `bench:volumeSets` volume sets in gvc `bench:gvc` and `bench:policies` policies,
 * policy i granting `view` on volume sets 5i..5i+4 to one group (so each policy waits for its five volume sets, as a
 * real stack's graph does). `bench:description` is the edit: every resource's description changes with it.
 *
 * `bench:adapter` picks the classes: `cpln` is the package's (the dynamic classes, or the native ones when the driver
 * runs with `provider: "native"`), `thin` declares the same objects as resources of the thinnest provider
 * (bench/servers/thinnest-provider.ts): their inputs are the API's bodies plus the collection to POST them to.
 */
import * as pulumi from "@pulumi/pulumi";
import * as cpln from "cpln-pulumi";

const config = new pulumi.Config("bench");
const adapter = config.require("adapter");
const org = config.require("org");
const gvc = config.require("gvc");
const prefix = config.require("prefix");
const volumeSets = config.requireNumber("volumeSets");
const policies = config.requireNumber("policies");
const description = config.require("description");
const group = config.require("group");
const PER_POLICY = 5;

/** A resource of the thinnest provider: `thin:index:<type>`, inputs sent as they are. */
class Thin extends pulumi.CustomResource {
  constructor(
    type: string,
    name: string,
    args: Record<string, pulumi.Input<unknown>>,
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(`thin:index:${type}`, name, args, opts);
  }
}

const volumeSetLinks: pulumi.Output<string>[] = [];
for (let i = 0; i < volumeSets; i++) {
  const name = `${prefix}-vs-${String(i).padStart(3, "0")}`;
  const text = `${description} ${name}`;
  if (adapter === "thin") {
    const resource = new Thin("VolumeSet", name, {
      collection: `/org/${org}/gvc/${gvc}/volumeset`,
      name,
      description: text,
      tags: { bench: "engine" },
      spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd", fileSystemType: "ext4" },
    });
    volumeSetLinks.push(resource.id);
  } else {
    const resource = new cpln.VolumeSet(name, {
      name,
      gvc,
      description: text,
      tags: { bench: "engine" },
      initialCapacity: 10,
      performanceClass: "general-purpose-ssd",
      fileSystemType: "ext4",
    });
    volumeSetLinks.push(resource.selfLink);
  }
}

for (let i = 0; i < policies; i++) {
  const name = `${prefix}-policy-${String(i).padStart(2, "0")}`;
  const targetLinks = volumeSetLinks.slice(i * PER_POLICY, (i + 1) * PER_POLICY);
  const common = {
    name,
    description: `${description} ${name}`,
    targetKind: "volumeset",
    targetLinks,
    bindings: [{ permissions: ["view"], principalLinks: [`/org/${org}/group/${group}`] }],
  };
  if (adapter === "thin") new Thin("Policy", name, { collection: `/org/${org}/policy`, ...common });
  else new cpln.Policy(name, { ...common, targetKind: "volumeset" });
}
