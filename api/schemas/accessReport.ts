import { z } from "zod";
import { lazy } from "../lazy.js";
import { links, timestamp } from "./common.js";

export const accessMatches = ["all", "link", "query"] as const;

/** Response of GET .../{name}/-accessreport: who may act on that object, per permission. */
export const accessReport = lazy(() =>
  z
    .looseObject({
      kind: z.literal("accessreport").describe("Always 'accessreport'."),
      permissions: z
        .array(
          z
            .looseObject({
              name: z.string().describe("Permission."),
              description: z.string().describe("What it allows."),
              bindings: z
                .array(
                  z
                    .looseObject({
                      principalLink: z.string().describe("Principal granted the permission (groups are not expanded)."),
                      grantingPolicyLink: z.string().describe("Policy that grants it."),
                      grantedPermissions: z
                        .array(z.string())
                        .describe("The binding's permissions that grant it (e.g. ['manage'])."),
                      match: z
                        .enum(accessMatches)
                        .describe("How the policy selects the object: all (target all), link (targetLinks), query."),
                    })
                    .describe("One grant."),
                )
                .describe("Grants of this permission; empty when nobody holds it."),
            })
            .describe("One permission of the object's kind."),
        )
        .describe("Every permission of the kind, in catalog order."),
      created: timestamp().describe("When the report was computed."),
      links: links(),
    })
    .describe("Who may act on an object."),
);
export type AccessReport = z.infer<ReturnType<typeof accessReport>>;
