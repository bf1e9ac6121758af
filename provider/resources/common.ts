/**
 * Input and output fields every named resource (VolumeSet, Policy) shares, described once with the kind's noun.
 */

import { z } from "zod";
import { description, name, tags } from "../../api/schemas/common.js";

/** `name`, `description`, `tags`, `org`, `adopt`. */
export function namedInputFields(noun: string) {
  return {
    name: name()
      .optional()
      .describe(`Name of the ${noun}; defaults to \`<resource name>-<7 hex>\`. Changing it replaces the ${noun}.`),
    description: description().optional(),
    tags: tags().optional(),
    org: z
      .string()
      .min(1)
      .optional()
      .describe(`Org of the ${noun}; defaults to the \`cpln:org\` stack config or CPLN_ORG. Changing it replaces.`),
    adopt: z
      .boolean()
      .optional()
      .describe(`Take over an existing ${noun} of this name (updating it to these args) instead of failing.`),
  };
}

/** What the server adds to every record, as outputs; `selfLinkForm` shows the link's shape. */
export function recordOutputFields(noun: string, selfLinkForm: string) {
  return {
    name: z.string().describe(`Name of the ${noun}.`),
    org: z.string().describe(`Org of the ${noun}.`),
    description: z.string().describe("Description (the name unless set)."),
    tags: z.record(z.string(), z.unknown()).describe("User tags (server tags under cpln/ are in serverTags)."),
    serverTags: z.record(z.string(), z.unknown()).optional().describe("Tags set by the server (keys under cpln/)."),
    cplnId: z.string().describe(`The API's id (UUID) of the ${noun}.`),
    selfLink: z.string().describe(`Link of the ${noun}, ${selfLinkForm} (also the resource id).`),
    version: z.number().describe("Version, incremented on every change."),
    created: z.string().describe(`When the ${noun} was created.`),
    lastModified: z.string().describe(`When the ${noun} last changed.`),
  };
}
