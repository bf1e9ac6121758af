/**
 * The registry of kinds: one descriptor per kind (`api/kinds/<kind>.ts`). A new kind is a new descriptor file plus
 * its line here; everything generic (routes, OpenAPI, authorization, the patch engine's rules, the client) reads it.
 *
 * The kinds cpln-local stores. Their permission catalogs, and those of every other kind a policy may target (the
 * policy set, `policyKindNames`), are in `catalogs.ts` with their sources.
 */
import type { PatchRules } from "../patch/rules.js";
import { auditCtxKind } from "./auditCtx.js";
import { cloudAccountKind } from "./cloudAccount.js";
import { domainKind } from "./domain.js";
import { groupKind } from "./group.js";
import { gvcKind } from "./gvc.js";
import { imageKind } from "./image.js";
import { identityKind } from "./identity.js";
import { locationKind } from "./location.js";
import { mk8sKind } from "./mk8s.js";
import { orgKind } from "./org.js";
import { policyKind } from "./policy.js";
import { quotaKind } from "./quota.js";
import { secretKind } from "./secret.js";
import { serviceAccountKind } from "./serviceAccount.js";
import { kindNames, type Kind } from "./names.js";
import type { KindDescriptor } from "./types.js";
import { userKind } from "./user.js";
import { volumeSetKind } from "./volumeSet.js";
import { workloadKind } from "./workload.js";

export type { Permission } from "./catalog.js";
export { kindNames, type Kind } from "./names.js";
export type { ActionContract, KindDescriptor, NamedBody } from "./types.js";

/** Every kind's descriptor. */
export const kinds: Readonly<Record<Kind, KindDescriptor>> = {
  org: orgKind,
  gvc: gvcKind,
  volumeset: volumeSetKind,
  location: locationKind,
  policy: policyKind,
  group: groupKind,
  serviceaccount: serviceAccountKind,
  user: userKind,
  cloudaccount: cloudAccountKind,
  mk8s: mk8sKind,
  auditctx: auditCtxKind,
  quota: quotaKind,
  workload: workloadKind,
  domain: domainKind,
  image: imageKind,
  secret: secretKind,
  identity: identityKind,
};

/** The patch rules of every kind by kind name (read from the descriptors), for `applyPatch` and `buildPatch`. */
export const patchRules: Readonly<Record<string, PatchRules>> = Object.fromEntries(
  kindNames.map((kind) => [kind, kinds[kind].patchRules]),
);
