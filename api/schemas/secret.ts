/**
 * Secrets: the record, the twelve types and the shape of each type's `data`, from controlplane-com/types-ts
 * `src/interfaces/secret.ts` (0d68d44: `Secret`, `SecretData`, `Opaque`, `AwsKey`, `EcrPull`, `UsernamePassword`,
 * `AzureConnector`, `Tls`, `KeyPair`, `Dictionary`, `NatsAccount`; gcp, azure-sdk and docker data are strings), with
 * the rules terraform-provider-cpln states for what it sends (`internal/provider/resource_secret.go` @851308c: aws and
 * ecr access keys start with `AKIA`, role ARNs with `arn:`, an ecr secret names at least one repository, userpass
 * fields are not empty, nats-account keys match `^A[A-Z0-9]{55}$` / `^SA[A-Z0-9]{56}$`) and the docs'
 * (docs.controlplane.com/reference/secret: a docker secret is JSON `{"auths": {...}}`; gcp and azure-sdk secrets are
 * JSON documents). `data` is reveal-only: GET, lists and queries leave it out; `GET .../-reveal` returns it.
 */
import { z } from "zod";
import { lazy } from "../lazy.js";
import { crossFieldRules, documentedRules, type DocumentedRule } from "./jsonRules.js";
import {
  description,
  describedTaggedPatchFields,
  name,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
} from "./common.js";

/** The types in the order of types-ts `Secret.type`. */
export const secretTypes = [
  "opaque",
  "tls",
  "gcp",
  "aws",
  "ecr",
  "userpass",
  "keypair",
  "azure-sdk",
  "azure-connector",
  "docker",
  "dictionary",
  "nats-account",
] as const;
export type SecretType = (typeof secretTypes)[number];

const encodings = ["plain", "base64"] as const;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const text = (what: string) => z.string().min(1, "must not be empty").describe(what);
const encoding = () =>
  z.enum(encodings).optional().describe("plain (default) or base64: how the value is encoded (decoded at run time).");

/** `value` must be base64 when `encoding` says so (the value is decoded at run time). */
function base64When<T extends { encoding?: string | undefined }>(field: keyof T & string) {
  return (data: T, ctx: z.core.$RefinementCtx<T>) => {
    const value = data[field];
    if (data.encoding === "base64" && typeof value === "string" && !BASE64.test(value.replace(/\s+/g, ""))) {
      ctx.addIssue({ code: "custom", path: [field], message: "must be base64 text when encoding is base64" });
    }
  };
}

const awsAccessKey = () =>
  z.string().startsWith("AKIA", "must be an AWS access key id (starting with AKIA)").describe("AWS access key id.");
const roleArn = () =>
  z.string().startsWith("arn:", "must be an ARN (starting with arn:)").optional().describe("Role ARN to assume.");

/** A JSON text holding an object (gcp, azure-sdk, docker); `check` adds the type's own rule. Never echoes the text. */
function jsonObjectText(what: string, check?: (doc: Record<string, unknown>) => string | undefined) {
  return z
    .string()
    .superRefine((value, ctx) => {
      let doc: unknown;
      try {
        doc = JSON.parse(value);
      } catch {
        ctx.addIssue({ code: "custom", message: "must be JSON text of an object" });
        return;
      }
      if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
        ctx.addIssue({ code: "custom", message: "must be JSON text of an object" });
        return;
      }
      const problem = check?.(doc as Record<string, unknown>);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    })
    .describe(what);
}

/** The shape of `data` per type (strict: an unknown field is a 400 naming it). */
const dataSchemas: Readonly<Record<SecretType, () => z.ZodType>> = {
  opaque: lazy(() =>
    z
      .strictObject({ payload: z.string().optional().describe("The text stored."), encoding: encoding() })
      .superRefine(base64When("payload"))
      .describe("opaque: any text (payload), plain or base64."),
  ),
  tls: lazy(() =>
    z
      .strictObject({
        key: z.string().optional().describe("PEM private key."),
        cert: text("PEM certificate."),
        chain: z.string().optional().describe("PEM certificate chain."),
      })
      .describe("tls: a PEM certificate (cert), its private key and chain."),
  ),
  gcp: lazy(() => jsonObjectText("gcp: a GCP service account key, as JSON text.")),
  aws: lazy(() =>
    z
      .strictObject({
        accessKey: awsAccessKey(),
        secretKey: text("AWS secret access key."),
        roleArn: roleArn(),
        externalId: z.string().optional().describe("External id of the role's trust policy."),
      })
      .describe("aws: an access key pair, optionally a role to assume."),
  ),
  ecr: lazy(() =>
    z
      .strictObject({
        accessKey: awsAccessKey(),
        secretKey: text("AWS secret access key."),
        roleArn: roleArn(),
        externalId: z.string().optional().describe("External id of the role's trust policy."),
        repos: z
          .array(text("ECR repository URI."))
          .min(1, "must name at least one repository")
          .describe("ECR repository URIs (AWS_ACCOUNT_ID.dkr.ecr.REGION.amazonaws.com/REPO)."),
      })
      .describe("ecr: an access key pair pulling from the repositories named."),
  ),
  userpass: lazy(() =>
    z
      .strictObject({ username: text("Username."), password: text("Password."), encoding: encoding() })
      .superRefine(base64When("password"))
      .describe("userpass: a username and password."),
  ),
  keypair: lazy(() =>
    z
      .strictObject({
        secretKey: text("PEM private key."),
        publicKey: z.string().optional().describe("PEM public key."),
        passphrase: z.string().optional().describe("Passphrase of the private key (required if it is encrypted)."),
      })
      .describe("keypair: a PEM private key, its public key and passphrase."),
  ),
  "azure-sdk": lazy(() => jsonObjectText("azure-sdk: Azure SDK credentials, as JSON text.")),
  "azure-connector": lazy(() =>
    z
      .strictObject({ url: text("Deployment URL of the function app."), code: text("Code (key) of the deployment.") })
      .describe("azure-connector: an Azure function app's URL and code."),
  ),
  docker: lazy(() =>
    jsonObjectText(
      "docker: a Docker config, as JSON text {auths: {REGISTRY: {username, password} | {auth}}}.",
      (doc) =>
        typeof doc["auths"] === "object" && doc["auths"] !== null && !Array.isArray(doc["auths"])
          ? undefined
          : 'must hold an "auths" object (a Docker config: {"auths": {"REGISTRY": {...}}})',
    ),
  ),
  dictionary: lazy(() =>
    z
      .record(z.string().min(1, "must not be empty"), z.string({ error: "must be a string" }))
      .describe("dictionary: string keys to string values."),
  ),
  "nats-account": lazy(() =>
    z
      .strictObject({
        accountId: z
          .string()
          .regex(/^A[A-Z0-9]{55}$/, "must be a 56-character NATS account public key beginning with A")
          .describe("NATS account public key."),
        privateKey: z
          .string()
          .regex(/^SA[A-Z0-9]{56}$/, "must be a 58-character NATS account seed beginning with SA")
          .describe("NATS account seed."),
      })
      .describe("nats-account: a NATS account's public key and seed."),
  ),
};

/** The schema of `data` for `type`. */
export function secretDataSchema(type: SecretType): z.ZodType {
  return dataSchemas[type]();
}

export function isSecretType(value: unknown): value is SecretType {
  return typeof value === "string" && (secretTypes as readonly string[]).includes(value);
}

const secretType = () => z.enum(secretTypes).describe(`The type: ${secretTypes.join(", ")}.`);

/** `data` of any type: JSON text (gcp, azure-sdk, docker) or an object; the type's shape is checked per type. */
const dataValue = () =>
  z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .describe(
      "The secret's value, shaped by its type (reveal-only: GET, lists and queries leave it out; GET .../-reveal " +
        "returns it). JSON text for gcp, azure-sdk and docker; an object otherwise.",
    );

/**
 * The per-type shape of `data` as JSON Schema: one `oneOf` branch per type (its `type` const and its `data`), so the
 * OpenAPI document states what each type takes and a tool building bodies from it picks a type, then its data.
 */
function perTypeRules(): Record<string, unknown> {
  return {
    oneOf: secretTypes.map((type) => ({
      properties: {
        type: { const: type },
        data: z.toJSONSchema(secretDataSchema(type), { io: "input", unrepresentable: "any" }),
      },
      required: ["type"],
    })),
  };
}

/**
 * How a refusal of `data` by its type's shape ends: the type it was checked against. On a create the type is the
 * body's (the document's per-type `if`/`then` states the shape); on a PATCH or PUT it is the type after the write.
 */
export function dataShapeIssue(message: string, type: SecretType): string {
  return `${message} (data of type ${type})`;
}

/** The rules of `data` JSON Schema cannot state: they read inside a text value or parse keys and certificates. */
const dataRules: readonly DocumentedRule[] = [
  {
    rule:
      "tls and keypair data hold PEM that parses (docs.controlplane.com/reference/secret: the secret is created or " +
      "updated only if they are valid PEM-encoded): tls cert and chain are X.509 certificates and key a private key; " +
      "keypair secretKey is a private key (an encrypted one needs the passphrase that decrypts it), publicKey a public key.",
    issue:
      /^(must be a PEM-encoded X\.509 certificate|must be PEM-encoded X\.509 certificates|must be a PEM-encoded private key|is encrypted: a passphrase is required|cannot be decrypted with the passphrase given|must be a PEM-encoded public key)$/,
  },
  {
    rule: 'gcp, azure-sdk and docker data is JSON text of an object; a docker secret\'s holds an "auths" object (a Docker config).',
    issue:
      /^(must be JSON text of an object|must hold an "auths" object \(.*\))( \(data of type (gcp|azure-sdk|docker)\))?$/,
  },
  {
    rule: "With encoding base64, opaque payload and userpass password are base64 text (whitespace ignored).",
    issue: /^must be base64 text when encoding is base64( \(data of type (opaque|userpass)\))?$/,
  },
];

/** A PATCH or PUT's `data` is checked against the type and data the secret has after the write (the stored ones). */
const storedTypeRule: DocumentedRule = {
  rule:
    "After a PATCH or PUT, data has the shape of the secret's type (the per-type shapes of SecretCreate): the type " +
    "is the body's or, left out, the stored one, and the data is the stored data merged with the body's (a PUT " +
    "leaving data out keeps it: GET never shows it). A write changing type must bring data of the new type.",
  issue: /^.+ \(data of type [a-z-]+\)$/,
};

export const secret = lazy(() =>
  z
    .looseObject({
      ...recordShape("secret"),
      type: secretType(),
      data: dataValue().optional(),
    })
    .describe("A secret: a typed value stored encrypted; its data is returned only by GET .../-reveal."),
);
export type Secret = z.infer<ReturnType<typeof secret>>;

/** The answer of `GET .../{name}/-reveal`: the record with its `data`. */
export const secretRevealed = lazy(() =>
  z
    .looseObject({ ...recordShape("secret"), type: secretType(), data: dataValue() })
    .describe("A secret with its data in plaintext (needs reveal)."),
);

export const secretCreate = lazy(() => {
  const schema = z
    .strictObject({
      name: name(),
      description: description().optional(),
      tags: tags().optional(),
      type: secretType(),
      data: dataValue(),
    })
    .describe("Body of POST /org/{org}/secret: data is checked against the shape of its type.");
  crossFieldRules().add(schema, { ...perTypeRules(), ...documentedRules(dataRules) });
  return schema;
});

export const secretPatch = lazy(() => {
  const schema = patchObject(
    {
      ...describedTaggedPatchFields(),
      type: { value: secretType(), required: true },
      data: {
        value: dataValue(),
        merge: z
          .union([z.string(), z.record(z.string(), z.unknown())])
          .describe("Object data merges (null removes a key); text data replaces."),
        required: true,
      },
    },
    readOnlyPatchShape(),
  ).describe("Body of PATCH /org/{org}/secret/{name}: the result's data is checked against its type.");
  crossFieldRules().add(schema, documentedRules([...dataRules, storedTypeRule]));
  return schema;
});
