/**
 * ServiceAccountKey: one key of a service account. Create = `POST .../serviceaccount/{sa}/-addKey`, whose answer is
 * the only time the key itself is returned: it becomes the `key` output, which the SDK class marks secret
 * (`additionalSecretOutputs`), and it is never put in an error or a log line. Delete = the key's revocation,
 * `PATCH {"$drop/keys": [name]}`. Nothing about a key can change in place: a new description replaces it.
 *
 * The key's marker: right after `-addKey`, one PATCH tags the service account with `cpln/pulumiServiceAccountKey.<key
 * name>`, and the revocation removes the tag in the same PATCH. A ServiceAccount resource leaves marked keys out of
 * its `keyNames` (so a refresh does not report the stack's own key as drift; a key added with the CLI still shows).
 * The tag is under `cpln/`, like PolicyBinding's marker (see policyBinding.ts for why). If the marker cannot be set,
 * the new key is revoked and create fails: no key is left behind that no resource knows of.
 */
import { z } from "zod";
import { parseOnce } from "../../api/parseOnce.js";
import { lazy } from "../../api/lazy.js";
import { parseLink, selfLink } from "../../api/links.js";
import { patchRules as allPatchRules } from "../../api/kinds/index.js";
import { description, name } from "../../api/schemas/common.js";
import { serviceAccount as serviceAccountRecord, serviceAccountKey } from "../../api/schemas/serviceAccount.js";
import { isCplnApiError } from "../client/errors.js";
import { jsonObject } from "./lifecycle.js";
import { readIgnoringMissing } from "./requests.js";
import { orgInput } from "./common.js";
import type { FieldRules, Props, ResourceContext, ResourceDefinition } from "./types.js";

// ---- input schema ---------------------------------------------------------------------------------------------------

export const serviceAccountKeyInputs = lazy(() =>
  z.strictObject({
    serviceAccount: name().describe("Name of the service account the key belongs to. Changing it replaces the key."),
    description: description().describe("Description of the key (required by the API). Changing it replaces the key."),
    org: orgInput("service account"),
  }),
);
export type ServiceAccountKeyInputs = z.infer<ReturnType<typeof serviceAccountKeyInputs>>;

export const serviceAccountKeyOutputs = lazy(() =>
  serviceAccountKeyInputs().extend({
    description: z.string().describe("Description of the key."),
    org: z.string().describe("Org of the service account."),
    name: z.string().describe("Name of the key: the text before the first '.' of the key."),
    key: z
      .string()
      .optional()
      .describe("The key (a secret). Known only to the stack that created it; absent when read with .get."),
    created: z.string().describe("When the key was added."),
    serviceAccountLink: z.string().describe("Link of the service account, /org/<org>/serviceaccount/<name>."),
  }),
);
export type ServiceAccountKeyOutputs = z.infer<ReturnType<typeof serviceAccountKeyOutputs>>;

// ---- field rules ----------------------------------------------------------------------------------------------------

const fields: FieldRules<ServiceAccountKeyInputs> = {
  serviceAccount: { replace: true },
  description: { replace: true },
  org: { replace: true },
};

// ---- the marker tag ------------------------------------------------------------------------------------------------

const KEY_MARKER_PREFIX = "cpln/pulumiServiceAccountKey.";

/** The tag that marks a key as managed by a ServiceAccountKey resource. */
export function keyMarker(keyName: string): string {
  return `${KEY_MARKER_PREFIX}${keyName}`;
}

/** True for a tag key that is a ServiceAccountKey's marker. */
export function isKeyMarker(tag: string): boolean {
  return tag.startsWith(KEY_MARKER_PREFIX);
}

// ---- toApi / fromApi ------------------------------------------------------------------------------------------------

/** The body of `-addKey`. */
function toApi(inputs: Props) {
  return jsonObject({ description: inputs.description });
}

/** The resource id: the service account's link and the key's name (`/org/o/serviceaccount/ci#<key name>`). */
function keyId(serviceAccountLink: string, keyName: string): string {
  return `${serviceAccountLink}#${keyName}`;
}

function splitId(id: string): { serviceAccountLink: string; keyName: string } {
  const at = id.lastIndexOf("#");
  const serviceAccountLink = at < 0 ? id : id.slice(0, at);
  const parsed = parseLink(serviceAccountLink);
  if (at < 0 || parsed?.kind !== "serviceaccount" || parsed.name === undefined) {
    throw new Error(`"${id}" is not a service account key id (/org/<org>/serviceaccount/<name>#<key name>)`);
  }
  return { serviceAccountLink, keyName: id.slice(at + 1) };
}

/** Outputs from the service account record's entry for the key; the key itself comes from `prior` (never read). */
function fromApi(record: unknown, prior: Props): ServiceAccountKeyOutputs {
  const { serviceAccountLink, keyName } = splitId(String(prior.id));
  const parsed = parseOnce(serviceAccountRecord(), record);
  const entry = parsed.keys?.find((k) => k.name === keyName);
  if (entry === undefined) throw new Error(`The service account has no key "${keyName}"`);
  const link = parseLink(serviceAccountLink);
  return {
    serviceAccount: parsed.name,
    description: entry.description ?? entry.name,
    org: link?.org ?? "",
    name: entry.name,
    ...(typeof prior.key === "string" ? { key: prior.key } : {}),
    created: entry.created,
    serviceAccountLink,
  };
}

// ---- the definition: check, diff (generic, from the tables above), create, read, update, delete ---------------------

export const serviceAccountKeyDefinition = {
  typeName: "ServiceAccountKey",
  kind: "serviceaccount",
  description:
    "A key of a Control Plane service account. The key is returned once, when it is added: it is the secret output " +
    "`key`, ready to hand to CI as a secret stack output. Every input replaces the key when it changes; destroying " +
    "the resource revokes the key.",
  inputs: serviceAccountKeyInputs,
  outputs: serviceAccountKeyOutputs,

  fields,
  patchRules: () => allPatchRules.serviceaccount ?? { arrays: {} },
  autoname: false,
  // The server names every key: a replacement never collides, and CI can switch keys before the old one is revoked.
  createBeforeReplace: true,
  secretOutputs: ["key"],

  toApi,
  fromApi,
  // pulumiverse's (Terraform's) import id, SERVICE_ACCOUNT_NAME:KEY_NAME (terraform-provider-cpln
  // docs/resources/service_account_key.md).
  importId: {
    form: "<service account>:<key name>",
    resolve(org: string, id: string): string | undefined {
      const parts = /^([^:/#]+):([^:/#]+)$/.exec(id);
      return parts === null
        ? undefined
        : keyId(selfLink(org, "serviceaccount", parts[1] as string), parts[2] as string);
    },
  },

  // check
  defaults: () => ({}),
  contractIssues: () => [],
  normalize: (inputs) => inputs,

  // create: one POST `-addKey`, then one PATCH setting the key's marker. The answer is parsed here, never echoed: a
  // malformed one is reported without it.
  async create(
    ctx: ResourceContext,
    inputs: ServiceAccountKeyInputs,
  ): Promise<{ id: string; outs: ServiceAccountKeyOutputs }> {
    const serviceAccountLink = selfLink(ctx.org, "serviceaccount", inputs.serviceAccount);
    const answer = await ctx.client.action(serviceAccountLink, "addKey", toApi(inputs));
    const parsed = serviceAccountKey().safeParse(answer);
    if (!parsed.success) {
      throw new Error(`-addKey on ${serviceAccountLink} answered without a key name, key and creation time`);
    }
    const { name: keyName, key, created } = parsed.data;
    try {
      await ctx.client.patchByLink(serviceAccountLink, { tags: { [keyMarker(keyName)]: "true" } });
    } catch (error) {
      // Roll back: a key nobody manages must not outlive a failed create (and if it does, say so).
      const revoked = await ctx.client.patchByLink(serviceAccountLink, { "$drop/keys": [keyName] }).then(
        () => true,
        () => false,
      );
      if (revoked) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(
          `The new key's marker tag could not be set on ${serviceAccountLink}, so the key was revoked: ${reason}`,
          {
            cause: error,
          },
        );
      }
      throw new Error(
        `Key "${keyName}" was added to ${serviceAccountLink} but could not be marked nor revoked: revoke it by hand ` +
          `(cpln serviceaccount remove-key)`,
        { cause: error },
      );
    }
    const outs: ServiceAccountKeyOutputs = {
      serviceAccount: inputs.serviceAccount,
      description: parsed.data.description ?? keyName,
      org: ctx.org,
      name: keyName,
      key,
      created,
      serviceAccountLink,
    };
    return { id: keyId(serviceAccountLink, keyName), outs };
  },

  // read: one GET of the service account; undefined when it or the key is gone. The key is kept from the state.
  async read(ctx: ResourceContext, id: string, props: Props): Promise<ServiceAccountKeyOutputs | undefined> {
    const { serviceAccountLink, keyName } = splitId(id);
    const record = await readIgnoringMissing(ctx, serviceAccountLink);
    if (record === undefined) return undefined;
    const keys = parseOnce(serviceAccountRecord(), record).keys ?? [];
    if (!keys.some((k) => k.name === keyName)) return undefined;
    return fromApi(record, { ...props, id });
  },

  // update: every input replaces, so an update changes nothing on the server and sends nothing.
  async update(
    _ctx: ResourceContext,
    _id: string,
    olds: ServiceAccountKeyOutputs,
    news: ServiceAccountKeyInputs,
  ): Promise<ServiceAccountKeyOutputs> {
    return { ...olds, ...news, description: news.description ?? olds.description, org: olds.org };
  },

  // delete: one PATCH revoking the key and removing its marker; a service account that is gone counts as done.
  async delete(ctx: ResourceContext, id: string): Promise<void> {
    const { serviceAccountLink, keyName } = splitId(id);
    try {
      await ctx.client.patchByLink(serviceAccountLink, {
        "$drop/keys": [keyName],
        tags: { [keyMarker(keyName)]: null },
      });
    } catch (error) {
      if (!(isCplnApiError(error) && error.status === 404)) throw error;
    }
  },
} satisfies ResourceDefinition<ServiceAccountKeyInputs, ServiceAccountKeyOutputs>;
