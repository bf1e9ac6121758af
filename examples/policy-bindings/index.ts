import * as pulumi from "@pulumi/pulumi";
import * as cpln from "cpln-pulumi";

// A policy that targets every volume set tagged team=data (a targetQuery, so volume sets created later are covered
// too), with two bindings. `policy-bindings:extraOperator` adds one principal to the "edit" binding: the provider
// patches that binding alone, so principals other clients append to the "view" binding meanwhile survive.
const config = new pulumi.Config("policy-bindings");
const extraOperator = config.get("extraOperator");

const teamData = new cpln.Policy("team-data", {
  description: "Access to the data team's volume sets",
  targetKind: "volumeset",
  targetQuery: {
    spec: {
      match: "all",
      terms: [{ op: "=", tag: "team", value: "data" }],
    },
  },
  bindings: [
    { permissions: ["view"], principalLinks: ["//group/data-readers"] },
    {
      permissions: ["edit"],
      principalLinks: ["//serviceaccount/data-operator", ...(extraOperator ? [extraOperator] : [])],
    },
  ],
  tags: { owner: "data-team" },
});

// Who may act on the data-readers group itself (view/edit/delete it), per permission.
const report = cpln.getGroupAccessReportOutput({ name: "data-readers" });

export const policySelfLink = teamData.selfLink;
export const bindings = teamData.bindings;
export const dataReadersAccess = report.apply((r) =>
  r.permissions.map((permission) => ({
    permission: permission.name,
    principals: permission.bindings.map((binding) => `${binding.principalLink} (${binding.match})`),
  })),
);
