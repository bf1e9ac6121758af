import { z } from "zod";
import { lazy } from "../lazy.js";
import { describedTaggedPatchFields, patchObject, readOnlyPatchShape, recordShape, tags } from "./common.js";
import { echoOnly } from "./jsonRules.js";

/*
 * The image kind: fields as types-ts `src/interfaces/image.ts` and terraform-provider-cpln
 * `internal/provider/client/image.go` state them (repository, tag, digest, manifest {config, layers, mediaType,
 * schemaVersion}); the rules from controlplane-com/ai-plugin `plugins/cpln/skills/image/SKILL.md`: an image is named
 * `NAME:TAG`, name and tag at most 128 characters each, it is never created through the API (pushing creates it) and
 * only its metadata tags can change. fidelity/facts/image.json holds these facts with their sources.
 */

export const IMAGE_PART_MAX = 128;
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

/**
 * `<repository>:<tag>`: a repository of lowercase letters, digits, '.', '_' and '-' (a letter or digit first, no '/':
 * cpln-local serves one path segment), a tag of letters, digits, '_', '.' and '-' ('.' and '-' not first); each at most
 * 128 characters.
 */
/** The repository part of an image's name (what `-latest/{repository}` takes). */
export const imageRepository = lazy(() =>
  z
    .string()
    .max(IMAGE_PART_MAX)
    .regex(
      /^[a-z0-9][a-z0-9._-]*$/,
      "must be a repository name: lowercase letters, digits, '.', '_' and '-', a letter or digit first",
    )
    .describe("A repository of the org's registry: an image's name before ':'."),
);

export const IMAGE_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

export const imageName = lazy(() =>
  z
    .string()
    .max(2 * IMAGE_PART_MAX + 1)
    .regex(
      IMAGE_NAME_PATTERN,
      "must be <repository>:<tag>: a repository of lowercase letters, digits, '.', '_', '-' and a tag of letters, digits, '_', '.', '-', each at most 128 characters",
    )
    .describe("The image's name: <repository>:<tag>, e.g. app:v1."),
);

const blob = () =>
  z.looseObject({
    size: z.number().int().min(0).optional().describe("Bytes."),
    digest: z.string().optional().describe("sha256:<hex>."),
    mediaType: z.string().optional(),
  });

export const imageManifest = lazy(() =>
  z
    .looseObject({
      config: blob().optional().describe("The image's configuration blob."),
      layers: z.array(blob()).optional().describe("The image's layers."),
      mediaType: z.string().optional().describe("The manifest's media type."),
      schemaVersion: z.number().int().optional().describe("The manifest format's version (2)."),
    })
    .describe("The registry manifest of the image."),
);

export const image = lazy(() =>
  z
    .looseObject({
      ...recordShape("image"),
      repository: z.string().describe("Repository of the org's registry."),
      tag: z.string().describe("Tag within the repository."),
      digest: z.string().regex(DIGEST_PATTERN).describe("sha256 digest of the manifest."),
      manifest: imageManifest().optional(),
    })
    .describe("An image of the org's registry (read-only: pushing creates it; only its tags change)."),
);
export type Image = z.infer<ReturnType<typeof image>>;

/** PATCH (and PUT): only `tags` change; the image's own fields may be echoed as read. */
export const imagePatch = lazy(() =>
  patchObject(
    {
      tags: describedTaggedPatchFields()["tags"] as NonNullable<ReturnType<typeof describedTaggedPatchFields>["tags"]>,
    },
    {
      ...readOnlyPatchShape(),
      description: echoOnly(z.string().optional().describe("Read-only; must equal the current value.")),
      repository: echoOnly(z.string().optional().describe("Read-only; must equal the current value.")),
      tag: echoOnly(z.string().optional().describe("Read-only; must equal the current value.")),
      digest: echoOnly(z.string().optional().describe("Read-only; must equal the current value.")),
      manifest: echoOnly(z.unknown().optional().describe("Read-only; must equal the current value.")),
    },
  ).describe("Body of PATCH /org/{org}/image/{name}: tags only."),
);

/** Body of the emulator's push (`POST /_cpln-local/org/{org}/image`): what `docker push` tells the registry. */
export const imagePush = lazy(() =>
  z
    .strictObject({
      name: imageName(),
      tags: tags().optional(),
      manifest: imageManifest()
        .optional()
        .describe(
          "The pushed manifest (default: a one-layer manifest derived from the name); the digest is its sha256.",
        ),
    })
    .describe("An image pushed to the org's registry."),
);
