import * as pulumi from "@pulumi/pulumi";
import * as cpln from "cpln-pulumi";

// The bash script that joins a machine to a generic mk8s cluster's node pool. The script carries a bootstrap token,
// so its Output form is a secret: `pulumi stack output joinScript --show-secrets` prints it. A policy lets the
// node-provisioner service account fetch join scripts for this cluster. `mk8s-join:nodePool` switches the pool:
// the script is fetched for the new pool and the policy's tag follows (one PATCH of tags).
const config = new pulumi.Config("mk8s-join");
const cluster = config.get("cluster") ?? "edge";
const nodePool = config.get("nodePool") ?? "general";
const org = new pulumi.Config("cpln").require("org");

const join = cpln.getMk8sJoinScriptOutput({ name: cluster, options: { nodePoolName: nodePool } });

const joiners = new cpln.Policy("edge-joiners", {
  description: `Join nodes to the ${cluster} cluster`,
  targetKind: "mk8s",
  targetLinks: [`/org/${org}/mk8s/${cluster}`],
  bindings: [{ permissions: ["join"], principalLinks: ["//serviceaccount/node-provisioner"] }],
  tags: { "node-pool": nodePool },
});

export const joinScript = join.script;
export const policySelfLink = joiners.selfLink;
