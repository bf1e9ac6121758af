import { kindNames, kinds, type Kind } from "../../api/kinds/index.js";
import { auditCtxRules } from "./auditCtx.js";
import { cloudAccountRules } from "./cloudAccount.js";
import { domainRules } from "./domain.js";
import { eventlogEndpoint } from "./eventlog.js";
import { groupRules } from "./group.js";
import { gvcRules } from "./gvc.js";
import { imageRules } from "./image.js";
import { identityRules } from "./identity.js";
import { locationRules } from "./location.js";
import { mk8sRules } from "./mk8s.js";
import { orgRules } from "./org.js";
import { policyRules } from "./policy.js";
import { countQuotaUse, quotaRules } from "./quota.js";
import type { KindRules, KindServerRules } from "./rules.js";
import { secretRules } from "./secret.js";
import { serviceAccountRules } from "./serviceAccount.js";
import { userRules } from "./user.js";
import { volumeSetRules } from "./volumeSet.js";
import { workloadRules } from "./workload.js";

/**
 * The server's rules of the kinds that have rules beyond their declaration (`server/domain/<kind>.ts`); every other
 * kind gets `plainRules`.
 */
const serverRules: Readonly<Partial<Record<Kind, KindServerRules>>> = {
  org: orgRules,
  gvc: gvcRules,
  volumeset: volumeSetRules,
  location: locationRules,
  policy: policyRules,
  group: groupRules,
  serviceaccount: serviceAccountRules,
  user: userRules,
  cloudaccount: cloudAccountRules,
  mk8s: mk8sRules,
  auditctx: auditCtxRules,
  quota: quotaRules,
  workload: workloadRules,
  domain: domainRules,
  image: imageRules,
  secret: secretRules,
  identity: identityRules,
};

/**
 * The server's rules of a kind whose declaration says everything: the record is the create body (name, description
 * and tags are every record's), no field is the server's, creates consume its count quota (`countQuotaUse`), and its
 * only endpoint may be the `-eventlog` every kind has. A kind with actions or other endpoints needs rules of its own
 * (`rulesOf` names what is missing).
 */
export function plainRules(kind: Kind): KindServerRules {
  const common = new Set([kinds[kind].addressing.field, "description", "tags"]);
  const quota = countQuotaUse(kind);
  return {
    kind,
    ...(quota !== undefined ? { quota } : {}),
    fields: { readOnly: [], immutable: [], preserved: [] },
    ...(kinds[kind].endpoints?.["eventlog"] ? { endpoints: { eventlog: eventlogEndpoint } } : {}),
    lifecycle: {
      initialize: (body) => Object.fromEntries(Object.entries(body).filter(([field]) => !common.has(field))),
    },
  };
}

/** One kind's full rules: its contract descriptor (schemas, addressing) with the server's rules. */
export function rulesOf(kind: Kind, server: KindServerRules): KindRules {
  const contract = kinds[kind];
  const contractActions = Object.keys(contract.actions ?? {}).sort();
  const serverActions = Object.keys(server.actions ?? {}).sort();
  if (contractActions.join() !== serverActions.join()) {
    throw new Error(
      `The actions of ${kind} differ: the contract has [${contractActions.join(", ")}], the server (server/domain/${kind}.ts) [${serverActions.join(", ")}]`,
    );
  }
  const contractEndpoints = Object.keys(contract.endpoints ?? {}).sort();
  const serverEndpoints = Object.keys(server.endpoints ?? {}).sort();
  if (contractEndpoints.join() !== serverEndpoints.join()) {
    throw new Error(
      `The endpoints of ${kind} differ: the contract has [${contractEndpoints.join(", ")}], the server (server/domain/${kind}.ts) [${serverEndpoints.join(", ")}]`,
    );
  }
  const defaults = contract.defaults;
  return {
    ...server,
    // The declaration's immutable fields and create defaults hold for the server as for the provider's resource.
    fields: { ...server.fields, immutable: [...server.fields.immutable, ...(contract.immutable ?? [])] },
    lifecycle:
      defaults !== undefined
        ? {
            ...server.lifecycle,
            initialize: (body, ctx) => server.lifecycle.initialize(defaults(body) as typeof body, ctx),
          }
        : server.lifecycle,
    record: contract.schemas.record,
    patchBody: contract.schemas.patch,
    ...(contract.schemas.create ? { createBody: contract.schemas.create } : {}),
    ...(contract.addressing.by === "id" ? { addressBy: "id" as const } : { nameField: contract.addressing.field }),
  };
}

/** The rules table of every kind. */
export const kindRules: Readonly<Record<Kind, KindRules>> = Object.fromEntries(
  kindNames.map((kind) => [kind, rulesOf(kind, serverRules[kind] ?? plainRules(kind))]),
) as Record<Kind, KindRules>;
