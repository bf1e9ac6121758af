import * as pulumi from "@pulumi/pulumi";
import * as cpln from "cpln-pulumi";

// A CI identity: a service account with a key for the pipeline (a secret stack output), a group it joins, an audit
// context for its events, and a PolicyBinding that grants the group `view` on the volume sets through the shared
// policy `volumeset-access` — which another team owns: the binding adds the group to it and takes only the group
// away again, whatever else the policy holds. `ci-identity:extraMember` adds one more member to the group.
const config = new pulumi.Config("ci-identity");
const extraMember = config.get("extraMember");

const ci = new cpln.ServiceAccount("ci", { description: "The CI pipeline" });

// The key is returned once, when it is added; the resource marks it secret (additionalSecretOutputs).
const key = new cpln.ServiceAccountKey("ci-key", { serviceAccount: ci.name, description: "CI deploy key" });

const deployers = new cpln.Group("deployers", {
  description: "Identities that deploy",
  memberLinks: [pulumi.interpolate`//serviceaccount/${ci.name}`, ...(extraMember ? [extraMember] : [])],
});

const audit = new cpln.AuditContext("ci-audit", { description: "Audit events of CI deployments" });

const viewVolumeSets = new cpln.PolicyBinding("deployers-view-volumesets", {
  policy: "volumeset-access",
  permissions: ["view"],
  principalLinks: [pulumi.interpolate`//group/${deployers.name}`],
});

export const serviceAccountName = ci.name;
// Secret already; `pulumi.secret` states it where the value leaves the program. `pulumi stack output ciKey
// --show-secrets` prints it, e.g. to store it as the CI system's CPLN_TOKEN.
export const ciKey = pulumi.secret(key.key);
export const keyName = key.name;
export const groupSelfLink = deployers.selfLink;
export const auditContextSelfLink = audit.selfLink;
export const volumeSetViewers = viewVolumeSets.principalLinks;
