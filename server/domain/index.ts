import type { Kind } from "../../api/kinds.js";
import { auditCtxRules } from "./auditCtx.js";
import { cloudAccountRules } from "./cloudAccount.js";
import { groupRules } from "./group.js";
import { gvcRules } from "./gvc.js";
import { locationRules } from "./location.js";
import { mk8sRules } from "./mk8s.js";
import { orgRules } from "./org.js";
import { policyRules } from "./policy.js";
import { quotaRules } from "./quota.js";
import type { KindRules } from "./rules.js";
import { serviceAccountRules } from "./serviceAccount.js";
import { userRules } from "./user.js";
import { volumeSetRules } from "./volumeSet.js";

/** The rules table of every kind. */
export const kindRules: Readonly<Record<Kind, KindRules>> = {
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
};
