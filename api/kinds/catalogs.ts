/**
 * The policy set: every kind a policy may target (`targetKind`), with its documented permission catalog and the form
 * of its objects' links. These are facts about the real Control Plane API, recorded with their sources in
 * `fidelity/facts/` and replayed by `test/fidelity/`:
 *
 * - the 33 kinds: `Kind` of controlplane-com/types-ts `src/interfaces/base.ts` (25f7399), the type of
 *   `Policy.targetKind` (`src/interfaces/policy.ts`);
 * - the catalogs: the output of `cpln <kind> permissions` in controlplane-docs/docs `cli-reference/commands/<kind>.mdx`
 *   (566c726), which is the API's `-schema/permissions` answer; where that page shows none, the table of
 *   `reference/<kind>.mdx`; kinds with neither (see `documented`) get the common catalog
 *   create/delete/edit(view)/manage/view;
 * - the link forms: the CLI's `GVC_SCOPED_KINDS` (`@controlplane/cli` 3.10.1 `dist/src/commands/resolver.js`) and its
 *   deployment path (`/org/o/gvc/g/workload/w/deployment/d`, `dist/src/rest/map.js`).
 *
 * This module names kinds only as data: generic code reads it through `api/kinds/index.ts`.
 */
import { perm, type Permission } from "./permission.js";

export const policyKindNames = [
  "org",
  "cloudaccount",
  "policy",
  "user",
  "group",
  "resource",
  "task",
  "permissions",
  "serviceaccount",
  "secret",
  "location",
  "gvc",
  "workload",
  "quota",
  "identity",
  "deployment",
  "event",
  "domain",
  "image",
  "ipset",
  "resourcepolicy",
  "agent",
  "accessreport",
  "policymembership",
  "dbcluster",
  "auditctx",
  "memcachecluster",
  "spicedbcluster",
  "tenant",
  "mk8s",
  "command",
  "imagesummary",
  "volumeset",
] as const;
export type PolicyKind = (typeof policyKindNames)[number];

/** Where an object of the kind lives: its self link's form. */
export type LinkForm = "org" | "orgItem" | "gvcItem" | "deployment";

/** One catalog row: name, description, what it implies besides itself (`manage`: everything, itself included). */
type Row = readonly [name: string, description: string, implies?: readonly string[]];

interface CatalogFacts {
  readonly form: LinkForm;
  /** Where the catalog is documented (a docs.controlplane.com page); absent: the common catalog, undocumented. */
  readonly documented?: string;
  readonly rows: readonly Row[];
}

const cli = (kind: string) => `https://docs.controlplane.com/cli-reference/commands/${kind}`;
const reference = (page: string) => `https://docs.controlplane.com/reference/${page}`;

/** create/delete/edit(view)/manage/view: the pattern of every documented catalog without extras. */
function common(noun: string): readonly Row[] {
  return [
    ["create", `Create new ${noun}`],
    ["delete", `Delete existing ${noun}`],
    ["edit", `Modify existing ${noun}`, ["view"]],
    ["manage", "Full access", ["create", "delete", "edit", "manage", "view"]],
    ["view", "Read-only access"],
  ];
}

const facts: Readonly<Record<PolicyKind, CatalogFacts>> = {
  org: {
    form: "org",
    documented: reference("org"),
    rows: [
      ["edit", "Modify org", ["view"]],
      ["exec", "Grantees can execute all commands on the org", ["exec.echo"]],
      ["exec.echo", "Grantees can execute the echo command"],
      ["grafanaAdmin", "Grantees are made Admin in Grafana, otherwise the role 'Viewer' is assigned"],
      [
        "manage",
        "Full access",
        [
          "edit",
          "exec",
          "exec.echo",
          "grafanaAdmin",
          "manage",
          "readLogs",
          "readMetrics",
          "readUsage",
          "view",
          "viewAccessReport",
        ],
      ],
      ["readLogs", "Grantees can read logs from all workloads", ["view"]],
      ["readMetrics", "Grantees can access usage and performance metrics"],
      ["readUsage", "Grantees can access usage and billing metrics"],
      ["view", "Read-only view: every org member can view their org"],
      ["viewAccessReport", "Grantees can inspect the granted access report on all resources within the org"],
    ],
  },
  cloudaccount: {
    form: "orgItem",
    documented: cli("cloudaccount"),
    rows: [
      ["browse", "Browse account contents", ["view"]],
      ["create", "Create new cloud accounts"],
      ["delete", "Delete existing cloud accounts"],
      ["edit", "Modify existing cloud accounts", ["view", "browse"]],
      ["manage", "Full access", ["browse", "create", "delete", "edit", "manage", "view"]],
      ["view", "Read-only access"],
    ],
  },
  policy: {
    form: "orgItem",
    documented: cli("policy"),
    rows: [
      ["create", "Create new policies"],
      ["delete", "Delete existing policies"],
      ["edit", "Modify existing policies", ["view"]],
      ["manage", "Full access", ["create", "delete", "edit", "manage", "view"]],
      ["view", "Read-only view"],
    ],
  },
  user: {
    form: "orgItem",
    documented: cli("user"),
    rows: [
      ["delete", "Delete existing users"],
      ["edit", "Modify existing users", ["view"]],
      ["impersonate", "Lets you impersonate a user"],
      ["invite", "Can invite users to this org"],
      ["manage", "Full access", ["delete", "edit", "impersonate", "invite", "manage", "view"]],
      ["view", "Read-only access"],
    ],
  },
  group: {
    form: "orgItem",
    documented: cli("group"),
    rows: [
      ["create", "Create new groups"],
      ["delete", "Delete a group"],
      ["edit", "Modify existing groups", ["view"]],
      ["manage", "Full access", ["create", "delete", "edit", "manage", "view"]],
      ["view", "Read-only view"],
    ],
  },
  resource: { form: "orgItem", rows: common("resources") },
  task: {
    form: "orgItem",
    documented: cli("task"),
    rows: [
      ["delete", "Delete/Cancel existing tasks"],
      ["edit", "Modify existing tasks", ["view"]],
      ["manage", "Full access", ["delete", "edit", "manage", "view"]],
      ["view", "Read-only access"],
    ],
  },
  permissions: { form: "orgItem", rows: common("permissions") },
  serviceaccount: {
    form: "orgItem",
    documented: cli("serviceaccount"),
    rows: [
      ["addKey", "Add key to an existing service account"],
      ["create", "Create new service accounts"],
      ["delete", "Delete service accounts"],
      ["edit", "Modify existing resources", ["view"]],
      ["manage", "Full access", ["addKey", "create", "delete", "edit", "manage", "view"]],
      ["view", "Read-only access"],
    ],
  },
  secret: {
    form: "orgItem",
    documented: cli("secret"),
    rows: [
      ["create", "Create new secrets"],
      ["delete", "Delete secrets"],
      ["edit", "Modify existing secrets", ["view", "reveal"]],
      ["manage", "Full access", ["create", "delete", "edit", "manage", "reveal", "use", "view"]],
      ["reveal", "Reveal the plaintext of the secret", ["view"]],
      ["use", "Refer to this secret from other entities (gvcs, cloudaccounts, etc)", ["view"]],
      ["view", "Read-only access excluding plaintext"],
    ],
  },
  location: {
    form: "orgItem",
    documented: cli("location"),
    rows: [
      ["create", "Create new locations"],
      ["delete", "Delete byok locations"],
      ["edit", "Modify existing locations", ["view"]],
      ["manage", "Full access", ["create", "delete", "edit", "manage", "use", "view"]],
      ["use", "Use this location for workload placement", ["view"]],
      ["view", "Read-only access"],
    ],
  },
  gvc: {
    form: "orgItem",
    documented: cli("gvc"),
    rows: [
      ["configureLoadBalancer", "Principal can configure LB"],
      ["create", "Create new gvcs"],
      ["delete", "Delete existing gvcs"],
      ["edit", "Modify existing gvcs", ["view"]],
      ["manage", "Full access", ["configureLoadBalancer", "create", "delete", "edit", "manage", "view"]],
      ["view", "Read-only access"],
    ],
  },
  workload: {
    form: "gvcItem",
    documented: cli("workload"),
    rows: [
      ["configureLoadBalancer", "Principal can configure LB"],
      ["connect", "Connect to replica (open an interactive shell)"],
      ["create", "Create new workloads"],
      ["delete", "Delete existing workloads"],
      ["edit", "Modify existing workloads", ["view"]],
      ["exec", "Execute commands", ["exec.runCronWorkload", "exec.stopReplica"]],
      ["exec.runCronWorkload", "Force a cron-workload to run"],
      ["exec.stopReplica", "Force a replica to be stopped"],
      [
        "manage",
        "Full access",
        [
          "configureLoadBalancer",
          "connect",
          "create",
          "delete",
          "edit",
          "exec",
          "exec.runCronWorkload",
          "exec.stopReplica",
          "manage",
          "view",
        ],
      ],
      ["view", "Read-only access"],
    ],
  },
  quota: {
    form: "orgItem",
    documented: cli("quota"),
    rows: [
      ["create", "Create new quotas"],
      ["edit", "Modify existing quotas", ["view"]],
      ["manage", "Full access", ["create", "edit", "manage", "view"]],
      ["view", "Read-only access"],
    ],
  },
  identity: {
    form: "gvcItem",
    documented: cli("identity"),
    rows: [
      ["create", "Create new identities"],
      ["delete", "Delete existing identities"],
      ["edit", "Modify existing identities", ["view"]],
      ["manage", "Full access", ["create", "delete", "edit", "manage", "use", "view"]],
      ["use", "Refer to this identity from other entities (workload, etc)", ["view"]],
      ["view", "Read-only access"],
    ],
  },
  deployment: { form: "deployment", rows: common("deployments") },
  event: { form: "orgItem", rows: common("events") },
  domain: {
    form: "orgItem",
    documented: cli("domain"),
    rows: [
      ["create", "Create new domain"],
      ["delete", "Delete a domain"],
      ["edit", "Modify existing domains (only tags can be changed)", ["view", "use"]],
      ["manage", "Full access", ["create", "delete", "edit", "manage", "use", "view"]],
      ["use", "Allow a principal to use this domain", ["view"]],
      ["view", "Read-only access"],
    ],
  },
  image: {
    form: "orgItem",
    documented: cli("image"),
    rows: [
      ["create", "Create new image. You can push if you can create images.", ["pull"]],
      ["delete", "Delete"],
      ["edit", "Modify existing image (only tags can be changed)", ["view"]],
      ["manage", "Full access", ["create", "delete", "edit", "manage", "pull", "view"]],
      ["pull", "Image can be pulled", ["view"]],
      ["view", "Read-only access"],
    ],
  },
  ipset: {
    form: "orgItem",
    documented: cli("ipset"),
    rows: [
      ["create", "Create new ip sets"],
      ["delete", "Delete ip sets"],
      ["edit", "Modify existing resources", ["view"]],
      ["manage", "Full access", ["create", "delete", "edit", "manage", "view"]],
      ["view", "Read-only access"],
    ],
  },
  resourcepolicy: { form: "orgItem", rows: common("resource policies") },
  agent: {
    form: "orgItem",
    documented: cli("agent"),
    rows: [
      ["create", "Create new agents"],
      ["delete", "Delete service agents"],
      ["edit", "Modify existing agents", ["view"]],
      ["manage", "Full access", ["create", "delete", "edit", "manage", "use", "view"]],
      ["use", "Use an agent in an identity", ["view"]],
      ["view", "Read-only access"],
    ],
  },
  accessreport: { form: "orgItem", rows: common("access reports") },
  policymembership: { form: "orgItem", rows: common("policy memberships") },
  dbcluster: { form: "gvcItem", rows: common("db clusters") },
  auditctx: {
    form: "orgItem",
    documented: cli("auditctx"),
    // No `delete`: audit contexts cannot be deleted.
    rows: [
      ["create", "Create new contexts"],
      ["edit", "Modify existing contexts", ["view"]],
      ["manage", "Full access", ["create", "edit", "manage", "readAudit", "view", "writeAudit"]],
      ["readAudit", "Read from this context", ["view"]],
      ["view", "Read-only view"],
      ["writeAudit", "Write to this context", ["view"]],
    ],
  },
  memcachecluster: { form: "orgItem", rows: common("memcache clusters") },
  spicedbcluster: { form: "orgItem", rows: common("spicedb clusters") },
  tenant: { form: "orgItem", rows: common("tenants") },
  // Not documented; `join` is cpln-local's permission for the `-join` endpoint (implied by `manage` only).
  mk8s: {
    form: "orgItem",
    rows: [
      ["create", "Create new mk8s clusters"],
      ["delete", "Delete existing mk8s clusters"],
      ["edit", "Modify existing mk8s clusters", ["view"]],
      ["join", "Obtain a node join script"],
      ["manage", "Full access", ["create", "delete", "edit", "join", "manage", "view"]],
      ["view", "Read-only access"],
    ],
  },
  command: { form: "orgItem", rows: common("commands") },
  imagesummary: { form: "orgItem", rows: common("image summaries") },
  volumeset: {
    form: "gvcItem",
    documented: reference("volumeset"),
    rows: [
      ["create", "Create new volumesets"],
      ["delete", "Delete existing volumesets"],
      ["edit", "Modify existing volumesets", ["view"]],
      [
        "exec",
        "Execute commands",
        [
          "exec.restoreVolume",
          "exec.createVolumeSnapshot",
          "exec.expandVolume",
          "exec.deleteVolume",
          "exec.deleteVolumeSnapshot",
          "exec.shrinkVolume",
        ],
      ],
      ["exec.createVolumeSnapshot", "Create a snapshot of a volume"],
      ["exec.deleteVolume", "Delete a volume"],
      ["exec.deleteVolumeSnapshot", "Delete a volume snapshot"],
      ["exec.expandVolume", "Increase the storage capacity of a volume"],
      ["exec.restoreVolume", "Restore a volume to a snapshot"],
      ["exec.shrinkVolume", "Shrink a volume (causes data loss)"],
      [
        "manage",
        "Full access",
        [
          "create",
          "delete",
          "edit",
          "exec",
          "exec.createVolumeSnapshot",
          "exec.deleteVolume",
          "exec.deleteVolumeSnapshot",
          "exec.expandVolume",
          "exec.restoreVolume",
          "exec.shrinkVolume",
          "manage",
          "view",
        ],
      ],
      ["view", "Read-only access"],
    ],
  },
};

const built = new Map<PolicyKind, readonly Permission[]>();

/** The documented permission catalog of `kind`, in API order (alphabetical). */
export function catalogOf(kind: PolicyKind): readonly Permission[] {
  let catalog = built.get(kind);
  if (catalog === undefined) {
    catalog = facts[kind].rows.map(([name, description, implies]) => perm(name, description, implies ?? []));
    built.set(kind, catalog);
  }
  return catalog;
}

/** The form of the self link of an object of `kind`. */
export function linkFormOf(kind: PolicyKind): LinkForm {
  return facts[kind].form;
}

/** The page documenting the catalog of `kind`, or undefined when it is not documented. */
export function catalogSourceOf(kind: PolicyKind): string | undefined {
  return facts[kind].documented;
}

export function isPolicyKind(value: unknown): value is PolicyKind {
  return typeof value === "string" && (policyKindNames as readonly string[]).includes(value);
}

/** The permission names of any kind of the policy set (stored by cpln-local or not), in catalog order. */
export function permissionNames(kind: PolicyKind): string[] {
  return catalogOf(kind).map((p) => p.name);
}

export function hasPermission(kind: PolicyKind, permission: string): boolean {
  return catalogOf(kind).some((p) => p.name === permission);
}
