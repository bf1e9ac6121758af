import type { z } from "zod";
import type { Kind } from "../kinds.js";
import { auditCtx, auditCtxCreate, auditCtxPatch } from "./auditCtx.js";
import { cloudAccount, cloudAccountCreate, cloudAccountPatch } from "./cloudAccount.js";
import { group, groupCreate, groupPatch } from "./group.js";
import { gvc, gvcCreate, gvcPatch } from "./gvc.js";
import { location, locationCreate, locationPatch } from "./location.js";
import { mk8s, mk8sCreate, mk8sPatch } from "./mk8s.js";
import { org, orgPatch } from "./org.js";
import { policy, policyCreate, policyPatch } from "./policy.js";
import { quota, quotaCreate, quotaPatch } from "./quota.js";
import { serviceAccount, serviceAccountCreate, serviceAccountPatch } from "./serviceAccount.js";
import { user, userCreate, userPatch } from "./user.js";
import { volumeSet, volumeSetCreate, volumeSetPatch } from "./volumeSet.js";

export interface KindSchemas {
  /** The record as the server returns it. */
  readonly record: () => z.ZodType;
  /** Body of POST to the collection; absent when the kind is not created through the API (org). */
  readonly create?: () => z.ZodType;
  /** Body of PATCH to the object. */
  readonly patch: () => z.ZodType;
}

/** The schemas of every kind, for generic code (routes, OpenAPI, client parsing). */
export const kindSchemas: Readonly<Record<Kind, KindSchemas>> = {
  org: { record: org, patch: orgPatch },
  gvc: { record: gvc, create: gvcCreate, patch: gvcPatch },
  volumeset: { record: volumeSet, create: volumeSetCreate, patch: volumeSetPatch },
  location: { record: location, create: locationCreate, patch: locationPatch },
  policy: { record: policy, create: policyCreate, patch: policyPatch },
  group: { record: group, create: groupCreate, patch: groupPatch },
  serviceaccount: { record: serviceAccount, create: serviceAccountCreate, patch: serviceAccountPatch },
  user: { record: user, create: userCreate, patch: userPatch },
  cloudaccount: { record: cloudAccount, create: cloudAccountCreate, patch: cloudAccountPatch },
  mk8s: { record: mk8s, create: mk8sCreate, patch: mk8sPatch },
  auditctx: { record: auditCtx, create: auditCtxCreate, patch: auditCtxPatch },
  quota: { record: quota, create: quotaCreate, patch: quotaPatch },
};
