import { cloudAccountProviders, type CloudAccountProvider } from "../../api/schemas/cloudAccount.js";
import type { JsonObject } from "../store/store.js";
import { isObject, pick } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindEndpoint, KindServerRules, RuleContext } from "./rules.js";

/** The `data` field each provider's account is used through (types-ts AwsConfig, GcpConfig, AzureConfig, NgsConfig). */
const DATA_FIELD: Readonly<Record<CloudAccountProvider, string>> = {
  aws: "roleArn",
  gcp: "projectId",
  azure: "secretLink",
  ngs: "secretLink",
};

/**
 * The emulated check of an account (`status` of types-ts CloudAccount: usable, lastChecked, lastError): usable when
 * its data names what the provider's account is used through. cpln-local reaches no cloud, so nothing more is checked.
 */
function statusOf(record: JsonObject, now: string): JsonObject {
  const provider = String(record["provider"]) as CloudAccountProvider;
  const field = DATA_FIELD[provider];
  const data = isObject(record["data"]) ? record["data"] : {};
  const value = data[field];
  if (typeof value === "string" && value !== "") return { usable: true, lastChecked: now };
  return {
    usable: false,
    lastChecked: now,
    lastError: `data.${field} is not set: the ${provider} account cannot be used`,
  };
}

/** Emulated setup instructions per provider (the CLI prints `message`, then each command of `data.cli`). */
const INSTRUCTIONS: Readonly<Record<CloudAccountProvider, (org: string) => JsonObject>> = {
  aws: (org) => ({
    message:
      `To let org ${org} use an AWS account, create an IAM role that Control Plane may assume and create the cloud ` +
      "account with the role's ARN (--role-arn). cpln-local emulates this answer: the trusted account below is a placeholder.",
    data: {
      cli: [
        `aws iam create-role --role-name cpln-${org} --assume-role-policy-document '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::000000000000:root"},"Action":"sts:AssumeRole"}]}'`,
        `aws iam attach-role-policy --role-name cpln-${org} --policy-arn arn:aws:iam::aws:policy/ReadOnlyAccess`,
      ],
    },
  }),
  gcp: (org) => ({
    message:
      `To let org ${org} use a GCP project, grant Control Plane's service account access to it and create the cloud ` +
      "account with the project id (--project-id). cpln-local emulates this answer: the service account below is a placeholder.",
    data: {
      cli: [
        `gcloud projects add-iam-policy-binding PROJECT_ID --member serviceAccount:cpln-${org}@cpln-local.invalid --role roles/viewer`,
      ],
    },
  }),
  azure: (org) => ({
    message:
      `To let org ${org} use an Azure subscription, store the connector's credentials in a secret and create the ` +
      "cloud account with the secret's link (data.secretLink). cpln-local emulates this answer.",
    data: {},
  }),
  ngs: (org) => ({
    message:
      `To let org ${org} use a Synadia NGS account, store its credentials in a secret and create the cloud account ` +
      "with the secret's link (data.secretLink). cpln-local emulates this answer.",
    data: {},
  }),
};

/** `-instructions/{provider}` (the route checks the provider against the contract's values). */
const instructionsEndpoint: KindEndpoint = {
  permission: "create",
  run(ctx) {
    const provider = String(ctx.param) as CloudAccountProvider;
    if (!(cloudAccountProviders as readonly string[]).includes(provider)) throw new Error(`no provider ${provider}`);
    return INSTRUCTIONS[provider](ctx.org);
  },
};

/**
 * Cloud accounts: the provider is fixed at create (read-only afterwards); `data` is free-form. `status` is the
 * server's: checked at create and again when `data` changes.
 */
export const cloudAccountRules: KindServerRules = {
  kind: "cloudaccount",
  endpoints: {
    eventlog: eventlogEndpoint,
    instructions: instructionsEndpoint,
  },
  quota: { name: "cloudaccounts", perGvc: false },
  fields: {
    readOnly: ["provider"],
    immutable: [],
    preserved: ["status"],
  },
  lifecycle: {
    initialize: (body, ctx: RuleContext) => {
      const record = pick(body, ["provider", "data"]);
      return { ...record, status: statusOf(record, ctx.now) };
    },
    afterPatch: (previous, next, ctx) =>
      JSON.stringify(previous["data"] ?? null) === JSON.stringify(next["data"] ?? null) && isObject(previous["status"])
        ? { ...next, status: previous["status"] }
        : { ...next, status: statusOf(next, ctx.now) },
  },
};
