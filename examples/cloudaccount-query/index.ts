import * as pulumi from "@pulumi/pulumi";
import * as cpln from "cpln-pulumi";

// Find cloud accounts with a query, show what permissions a cloud account policy can grant, and grant the
// "browse" permission on exactly the accounts found. `cloudaccount-query:provider` switches the query (aws → gcp):
// the policy's targetLinks change by one $drop/ and one $append/ directive.
const config = new pulumi.Config("cloudaccount-query");
const provider = config.get("provider") ?? "aws";

const accounts = cpln.queryCloudAccountsOutput({
  spec: {
    match: "all",
    terms: [{ op: "=", property: "provider", value: provider }],
    sort: { by: "name", order: "asc" },
  },
});
const permissions = cpln.getCloudAccountPermissionsOutput({});

const browse = new cpln.Policy("cloudaccount-browse", {
  description: `Browse the ${provider} cloud accounts`,
  targetKind: "cloudaccount",
  targetLinks: accounts.items.apply((items) =>
    items.map((account) => account.links.find((l) => l.rel === "self")!.href),
  ),
  bindings: [{ permissions: ["browse"], principalLinks: ["//group/data-readers"] }],
});

export const matchingAccounts = accounts.items.apply((items) => items.map((account) => account.name));
export const permissionSchema = permissions.apply((schema) =>
  Object.fromEntries(schema.items.map((p) => [p.name, schema.implied[p.name] ?? []])),
);
export const policySelfLink = browse.selfLink;
