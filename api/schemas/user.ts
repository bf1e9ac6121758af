import { echoOnly } from "./jsonRules.js";
import { z } from "zod";
import { apiError } from "../errors.js";
import { lazy } from "../lazy.js";
import {
  description,
  describedTaggedPatchFields,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
} from "./common.js";

export const user = lazy(() =>
  z
    .looseObject({
      ...recordShape("user"),
      email: z.string().describe("Email address; also the user's name in links (/org/{org}/user/{email})."),
      idp: z.string().optional().describe("Identity provider the user signs in with."),
    })
    .describe("A human principal, authenticated by JWT (its email claim names the user)."),
);
export type User = z.infer<ReturnType<typeof user>>;

/**
 * Longest email address (RFC 5321: a 256-octet path less its angle brackets). The email is the user's path segment
 * (/org/{org}/user/{email}), so it must also stay within the server's path-segment limit.
 */
export const EMAIL_MAX = 254;

/** Body of POST /org/{org}/user: the user's name is its email. */
export const userCreate = lazy(() =>
  z
    .strictObject({
      email: z
        .email("must be an email address")
        .max(EMAIL_MAX, `must be at most ${EMAIL_MAX} characters`)
        .describe(`Email address, at most ${EMAIL_MAX} characters; becomes the user's name.`),
      idp: z.string().min(1).optional().describe("Identity provider."),
      description: description().optional(),
      tags: tags().optional(),
    })
    .describe("Body of POST /org/{org}/user."),
);

export const userPatch = lazy(() =>
  patchObject(describedTaggedPatchFields(), {
    ...readOnlyPatchShape(),
    email: echoOnly(z.string().optional().describe("Read-only.")),
    idp: echoOnly(z.string().optional().describe("Read-only.")),
  }).describe("Body of PATCH /org/{org}/user/{email}."),
);

/** Body of `POST /org/{org}/user/-invite` (`InviteRequest` of controlplane-com/types-ts, plus the CLI's `groupLink`). */
export const userInvite = lazy(() =>
  z
    .strictObject({
      emails: z
        .array(z.email("must be an email address").max(EMAIL_MAX))
        .min(1)
        .max(100)
        .describe("Email addresses to invite (1 to 100)."),
      groupLink: z
        .string()
        .regex(/^(\/\/|\/org\/[^/]+\/)group\/[^/]+$/, "must be a group link: //group/<name> or /org/<org>/group/<name>")
        .optional()
        .describe("A group the invited users join when they accept (//group/NAME)."),
    })
    .describe("Body of POST /org/{org}/user/-invite."),
);

/** Answer of `-invite` (`InviteResponse` of controlplane-com/types-ts): per email, an invitation or an error. */
export const userInviteResponse = lazy(() =>
  z
    .looseObject({
      invitations: z.record(z.string(), z.string()).describe("Invitation id by email."),
      errors: z.record(z.string(), apiError()).describe("Why an email was not invited, by email."),
    })
    .describe("The invitations sent."),
);
