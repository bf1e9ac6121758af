import { z } from "zod";
import { lazy } from "../lazy.js";
import { links } from "./common.js";

/** Response of GET /org/{org}/{kind}/-schema/permissions. */
export const permissionSchema = lazy(() =>
  z
    .looseObject({
      kind: z.literal("permissions").describe("Always 'permissions'."),
      targetKind: z.string().describe("Kind the permissions apply to."),
      items: z
        .array(
          z
            .looseObject({
              name: z.string().describe("Permission name."),
              description: z.string().describe("What it allows."),
            })
            .describe("One permission."),
        )
        .describe("Every permission of the kind, in API order."),
      implied: z
        .record(z.string(), z.array(z.string()))
        .describe("Permissions each permission implies ('manage' implies all, itself included)."),
      links: links().optional(),
    })
    .describe("The permission catalog of one kind."),
);
export type PermissionSchema = z.infer<ReturnType<typeof permissionSchema>>;
