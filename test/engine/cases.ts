/**
 * One entry per example: the config its first run needs, the one edit the test makes, and exactly what that edit
 * must send. `before` creates objects that exist before the program runs (the existing-resources example adopts
 * them); the org snapshot the test compares after destroy is taken before `before` runs.
 */

export interface ExpectedRequest {
  method: "PATCH";
  /** The path, or a pattern for autonamed objects (`/org/test/policy/data-access-[0-9a-f]{7}`). */
  path: RegExp;
  body: unknown;
}

export interface ApiCall {
  method: "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
}

export interface ExampleCase {
  name: string;
  /** Program config besides cpln:org/endpoint/token. */
  config: Record<string, string>;
  /** Resources the first up creates (or adopts), as `Type name`. */
  creates: string[];
  /** Those of `creates` that exist before the first up (`before`) and are adopted (`adopt: true`), not created. */
  adopts?: string[];
  edit: Record<string, string>;
  /** The mutating requests the edit's up sends, in order, and nothing else. */
  expected: ExpectedRequest[];
  before?: ApiCall[];
  /** Stack outputs that must be secret (redacted by the engine, absent in plaintext from the state). */
  secretOutputs?: string[];
}

export const ORG = "test";
const hex7 = "[0-9a-f]{7}";

export const exampleCases: ExampleCase[] = [
  {
    name: "quickstart",
    config: {},
    creates: ["VolumeSet data", "Policy data-access", "Location aws-us-west-2"],
    edit: { "quickstart:extraViewer": "//serviceaccount/ci-bot" },
    expected: [
      {
        method: "PATCH",
        path: new RegExp(`^/org/${ORG}/policy/data-access-${hex7}$`),
        body: {
          "$patch/bindings": [
            { permissions: ["view"], "$append/principalLinks": [`/org/${ORG}/serviceaccount/ci-bot`] },
          ],
        },
      },
    ],
  },
  {
    name: "volumeset-autoscaling",
    config: {},
    creates: ["VolumeSet logs"],
    edit: { "volumeset-autoscaling:maxCapacity": "1000" },
    expected: [
      {
        method: "PATCH",
        path: new RegExp(`^/org/${ORG}/gvc/default/volumeset/logs-${hex7}$`),
        body: { spec: { autoscaling: { maxCapacity: 1000 } } },
      },
    ],
  },
  {
    name: "policy-bindings",
    config: {},
    creates: ["Policy team-data"],
    edit: { "policy-bindings:extraOperator": "//serviceaccount/ci-bot" },
    expected: [
      {
        method: "PATCH",
        path: new RegExp(`^/org/${ORG}/policy/team-data-${hex7}$`),
        body: {
          "$patch/bindings": [
            { permissions: ["edit"], "$append/principalLinks": [`/org/${ORG}/serviceaccount/ci-bot`] },
          ],
        },
      },
    ],
  },
  {
    name: "location-toggle",
    config: {},
    creates: ["Location frankfurt"],
    edit: { "location-toggle:enabled": "true" },
    expected: [
      {
        method: "PATCH",
        path: new RegExp(`^/org/${ORG}/location/gcp-europe-west3$`),
        body: { spec: { enabled: true } },
      },
    ],
  },
  {
    name: "cloudaccount-query",
    config: {},
    creates: ["Policy cloudaccount-browse"],
    edit: { "cloudaccount-query:provider": "gcp" },
    expected: [
      {
        method: "PATCH",
        path: new RegExp(`^/org/${ORG}/policy/cloudaccount-browse-${hex7}$`),
        body: {
          description: "Browse the gcp cloud accounts",
          "$drop/targetLinks": [`/org/${ORG}/cloudaccount/aws-prod`, `/org/${ORG}/cloudaccount/aws-staging`],
          "$append/targetLinks": [`/org/${ORG}/cloudaccount/gcp-analytics`],
        },
      },
    ],
  },
  {
    name: "mk8s-join",
    config: {},
    creates: ["Policy edge-joiners"],
    edit: { "mk8s-join:nodePool": "gpu" },
    secretOutputs: ["joinScript"],
    expected: [
      {
        method: "PATCH",
        path: new RegExp(`^/org/${ORG}/policy/edge-joiners-${hex7}$`),
        body: { tags: { "node-pool": "gpu" } },
      },
    ],
  },
  {
    name: "ci-identity",
    config: {},
    creates: [
      "ServiceAccount ci",
      "ServiceAccountKey ci-key",
      "Group deployers",
      "AuditContext ci-audit",
      "PolicyBinding deployers-view-volumesets",
    ],
    edit: { "ci-identity:extraMember": "//serviceaccount/ci-bot" },
    secretOutputs: ["ciKey"],
    expected: [
      {
        method: "PATCH",
        path: new RegExp(`^/org/${ORG}/group/deployers-${hex7}$`),
        body: { "$append/memberLinks": [`/org/${ORG}/serviceaccount/ci-bot`] },
      },
    ],
  },
  {
    name: "app",
    config: {},
    creates: [
      "Gvc app",
      "Secret app-settings",
      "Identity app",
      "Policy app-reveal",
      "VolumeSet app-data",
      "Workload app",
      "Domain app",
    ],
    edit: { "app:greeting": "bonjour" },
    secretOutputs: [],
    expected: [
      {
        method: "PATCH",
        path: new RegExp(`^/org/${ORG}/gvc/app-${hex7}/workload/app-${hex7}$`),
        body: {
          spec: { "$patch/containers": [{ name: "app", "$patch/env": [{ name: "GREETING", value: "bonjour" }] }] },
        },
      },
    ],
  },
  {
    name: "existing-resources",
    config: {},
    creates: ["VolumeSet legacy-data", "Policy legacy-access"],
    adopts: ["VolumeSet legacy-data", "Policy legacy-access"],
    edit: { "existing-resources:capacity": "40" },
    expected: [
      {
        method: "PATCH",
        path: new RegExp(`^/org/${ORG}/gvc/default/volumeset/legacy-data$`),
        body: { spec: { initialCapacity: 40 } },
      },
    ],
    before: [
      {
        method: "POST",
        path: `/org/${ORG}/gvc/default/volumeset`,
        body: { name: "legacy-data", spec: { initialCapacity: 10, performanceClass: "general-purpose-ssd" } },
      },
      {
        method: "POST",
        path: `/org/${ORG}/policy`,
        body: {
          name: "legacy-access",
          targetKind: "volumeset",
          targetLinks: ["//gvc/default/volumeset/legacy-data"],
          bindings: [{ permissions: ["view"], principalLinks: ["//group/viewers"] }],
        },
      },
    ],
  },
];
