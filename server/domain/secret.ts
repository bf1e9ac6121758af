import { createPrivateKey, createPublicKey, X509Certificate } from "node:crypto";
import { issuesFromZod, type Issue } from "../../api/errors.js";
import { dataShapeIssue, isSecretType, secretDataSchema } from "../../api/schemas/secret.js";
import type { JsonObject, JsonValue } from "../store/store.js";
import { isObject, pick } from "./common.js";
import { eventlogEndpoint } from "./eventlog.js";
import type { KindEndpoint, KindServerRules } from "./rules.js";

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Whether `text` is one or more PEM certificates that parse (X.509). */
function certificatesParse(text: string): boolean {
  const blocks = text.match(PEM_CERT) ?? [];
  if (blocks.length === 0) return false;
  try {
    for (const block of blocks) new X509Certificate(block);
    return true;
  } catch {
    return false;
  }
}

/** Why a PEM private key does not load, or undefined; never the key or the library's text (it may quote input). */
function privateKeyProblem(key: string, passphrase: string | undefined): string | undefined {
  if (!key.includes("-----BEGIN")) return "must be a PEM-encoded private key";
  // PKCS#8 `ENCRYPTED PRIVATE KEY` or a legacy PEM header `Proc-Type: 4,ENCRYPTED` (the docs' sample keypair).
  const encrypted = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type:\s*4,ENCRYPTED/.test(key);
  if (encrypted && passphrase === undefined) return "is encrypted: a passphrase is required";
  try {
    createPrivateKey(passphrase === undefined ? { key, format: "pem" } : { key, format: "pem", passphrase });
    return undefined;
  } catch {
    return encrypted ? "cannot be decrypted with the passphrase given" : "must be a PEM-encoded private key";
  }
}

/**
 * The checks beyond the shape that the docs state (docs.controlplane.com/reference/secret): tls certificates and
 * keypair keys "will be validated and the secret will only be created or updated if they are valid PEM-encoded".
 */
function pemIssues(type: string, data: JsonObject): Issue[] {
  const issues: Issue[] = [];
  const text = (field: string) => (typeof data[field] === "string" ? (data[field] as string) : undefined);
  if (type === "tls") {
    const cert = text("cert");
    if (cert !== undefined && !certificatesParse(cert)) {
      issues.push({ path: "data.cert", message: "must be a PEM-encoded X.509 certificate" });
    }
    const chain = text("chain");
    if (chain !== undefined && chain.trim() !== "" && !certificatesParse(chain)) {
      issues.push({ path: "data.chain", message: "must be PEM-encoded X.509 certificates" });
    }
    const key = text("key");
    const problem = key === undefined ? undefined : privateKeyProblem(key, undefined);
    if (problem !== undefined) issues.push({ path: "data.key", message: problem });
  }
  if (type === "keypair") {
    const key = text("secretKey");
    const problem = key === undefined ? undefined : privateKeyProblem(key, text("passphrase"));
    if (problem !== undefined) issues.push({ path: "data.secretKey", message: problem });
    const publicKey = text("publicKey");
    if (publicKey !== undefined) {
      try {
        createPublicKey({ key: publicKey, format: "pem" });
      } catch {
        issues.push({ path: "data.publicKey", message: "must be a PEM-encoded public key" });
      }
    }
  }
  return issues;
}

/** `data` against the shape of the record's type (api/schemas/secret.ts), then the PEM checks. */
function dataIssues(record: JsonObject): Issue[] {
  const type = record["type"];
  const data = record["data"] as JsonValue | undefined;
  if (!isSecretType(type)) return []; // the record schema names a bad type
  if (data === undefined || data === null) return [{ path: "data", message: dataShapeIssue("is required", type) }];
  const parsed = secretDataSchema(type).safeParse(data);
  // The issue names the field at fault (`data.accessKey`) or `data` itself for a value of the wrong form, and the
  // type checked against (a PATCH's is the stored one when the body leaves type out).
  if (!parsed.success) {
    return issuesFromZod(parsed.error, ["data"]).map((i) => ({ ...i, message: dataShapeIssue(i.message, type) }));
  }
  return isObject(data) ? pemIssues(type, data) : [];
}

/** `-reveal`: the stored record, `data` included, to a principal holding `reveal` on it. */
const revealEndpoint: KindEndpoint = {
  permission: "reveal",
  run: (ctx) => ctx.record ?? {},
};

/**
 * Secrets: `type` and `data` from the body; `data` is checked against its type on every write (a PATCH changing
 * `type` must bring data of the new type: terraform-provider-cpln sends `type` with `$replace/data`).
 */
export const secretRules: KindServerRules = {
  kind: "secret",
  endpoints: {
    eventlog: eventlogEndpoint,
    reveal: revealEndpoint,
  },
  quota: { name: "secrets", perGvc: false },
  fields: {
    readOnly: [],
    immutable: [],
    preserved: [],
  },
  lifecycle: {
    initialize: (body) => pick(body, ["type", "data"]),
    validate: (record) => dataIssues(record),
  },
};
