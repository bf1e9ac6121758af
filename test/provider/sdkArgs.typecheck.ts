// Compile-time only (checked by `npm run typecheck`, never run): every SDK args interface, declared as plain
// TypeScript so that the published .d.ts never reaches zod, must be assignable to the provider's input schema.
import type * as pulumi from "@pulumi/pulumi";
import type { AuditContextInputs } from "../../provider/resources/auditCtx.js";
import type { CloudAccountInputs } from "../../provider/resources/cloudAccount.js";
import type { GroupInputs } from "../../provider/resources/group.js";
import type { PolicyBindingInputs } from "../../provider/resources/policyBinding.js";
import type { ServiceAccountInputs } from "../../provider/resources/serviceAccount.js";
import type { ServiceAccountKeyInputs } from "../../provider/resources/serviceAccountKey.js";
import type {
  AuditContextArgs,
  CloudAccountArgs,
  GroupArgs,
  PolicyBindingArgs,
  ServiceAccountArgs,
  ServiceAccountKeyArgs,
} from "../../sdk/index.js";

type Accepts<Args, Inputs> = pulumi.Unwrap<Args> extends Inputs ? true : never;

export const sdkArgsMatchProvider: [
  Accepts<GroupArgs, GroupInputs>,
  Accepts<ServiceAccountArgs, ServiceAccountInputs>,
  Accepts<ServiceAccountKeyArgs, ServiceAccountKeyInputs>,
  Accepts<AuditContextArgs, AuditContextInputs>,
  Accepts<CloudAccountArgs, CloudAccountInputs>,
  Accepts<PolicyBindingArgs, PolicyBindingInputs>,
] = [true, true, true, true, true, true];
