/**
 * The `cpln-native` package schema of this repository (served by the native plugin's GetSchema): the provider's registries fed to the generator.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { declaredFunctionsByName, resources } from "../../provider/index.js";
import { schemaFunctions } from "./functions.js";
import {
  generateSchema,
  type PackageMetadata,
  type PackageSchema,
  type SchemaFunction,
  type SchemaResource,
} from "./generate.js";

export const packageDescription =
  "Control Plane volume sets, policies and locations, with data sources for quotas, " +
  "permission schemas, cloud-account queries, service accounts, groups, policies, locations, access reports and " +
  "mk8s join scripts. Served by the native plugin pulumi-resource-cpln-native for every Pulumi language; " +
  "TypeScript programs may use the same resources as dynamic resources (the cpln-pulumi package).";

export function registryResources(): SchemaResource[] {
  return Object.values(resources);
}

export function registryFunctions(): SchemaFunction[] {
  return [...schemaFunctions(), ...Object.values(declaredFunctionsByName)];
}

/**
 * Where the project lives and is published. One GitHub repository holds the sources, the release archives of the
 * plugin (GitHub releases, tag `v<version>`) and the Go SDK (module `sdk/go`, tagged `sdk/go/v<version>` by the
 * release workflow, so `go get` finds it).
 */
export const REPOSITORY = "https://github.com/cpln-pulumi/cpln-pulumi";
export const GO_MODULE = "github.com/cpln-pulumi/cpln-pulumi/sdk/go";

/** The version of everything released together: the npm packages, the plugin, the schema and the SDKs. */
export function releaseVersion(): string {
  // The repository's package.json: two folders up from the sources (tools/schema/), three from dist/tools/schema/.
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version;
  }
  throw new Error(`no package.json above ${__dirname}`);
}

export function packageMetadata(version: string): PackageMetadata {
  return {
    displayName: "Control Plane (native provider)",
    description: packageDescription,
    version,
    keywords: ["pulumi", "cpln", "controlplane", "category/cloud", "kind/native"],
    license: "Apache-2.0",
    publisher: "cpln-pulumi",
    repository: REPOSITORY,
    homepage: REPOSITORY,
    logoUrl: `${REPOSITORY.replace("https://github.com/", "https://raw.githubusercontent.com/")}/main/docs/logo.svg`,
    // A GitHub release's asset address; the engine appends `/pulumi-resource-cpln-native-v<v>-<os>-<arch>.tar.gz`.
    pluginDownloadURL: `${REPOSITORY}/releases/download/v\${VERSION}`,
    language: {
      nodejs: {
        packageName: "@cpln-pulumi/cpln-native",
        packageDescription,
        // The generated classes call runtime APIs of the generator's own release (`runtime.existsResource`, absent
        // from 3.248): tools/engine/gen pins pulumi/pkg v3.274.1.
        dependencies: { "@pulumi/pulumi": "^3.274.0" },
        respectSchemaVersion: true,
      },
      // The version each generator stamps into its SDK (`respectSchemaVersion`) is the one that asks the engine for
      // this plugin version (docs/languages.md).
      python: { packageName: "pulumi_cpln_native", pyproject: { enabled: true }, respectSchemaVersion: true },
      go: { importBasePath: `${GO_MODULE}/cplnnative`, respectSchemaVersion: true },
      // NuGet package CplnPulumi.CplnNative (rootNamespace + the package name: the .csproj's name). No
      // packageReferences: the generator (tools/engine/gen-dotnet) then writes the Pulumi range it generates code
      // for (`[3.76.1.0,4)` in codegen/dotnet/gen.go at pkg v3.225.1) rather than any 3.x.
      csharp: { rootNamespace: "CplnPulumi", respectSchemaVersion: true },
      // Maven io.github.cplnpulumi:cpln-native (a Java package name allows no hyphen).
      java: {
        basePackage: "io.github.cplnpulumi",
        buildFiles: "gradle",
        // The generated build.gradle publishes to Maven Central through this plugin (the release workflow).
        gradleNexusPublishPluginVersion: "2.0.0",
        dependencies: { "com.pulumi:pulumi": "1.+" },
      },
    },
  };
}

export function packageSchema(): PackageSchema {
  return generateSchema(registryResources(), registryFunctions(), packageMetadata(releaseVersion()));
}
