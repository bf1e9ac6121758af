// Compile-time only (checked by `npm run typecheck` and `tsc -p tsconfig.json`, never run). Every resource type of
// the registry (`ResourceTypeName`: the hand-written definitions and each kind whose declaration has a `resource`)
// has a class in `cpln-pulumi` and in `cpln-pulumi/native` whose args — plain TypeScript, so that the published .d.ts
// never reaches zod — the provider's input schema accepts: every arg one it has, of a type it takes, and every input
// it requires given. Nothing here names a type, so `npm run gen` alone brings a new kind under the check; a failure
// names the type, the SDK and what is wrong, in the type of `sdkArgsMatchProvider`.
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type { KindDeclaration } from "../../api/kinds/index.js";
import type { resources } from "../../provider/index.js";
import type { DeclaredInputs } from "../../provider/resources/declared.js";
import type { DeclaredTypeKinds, DeclaredTypeName } from "../../provider/resources/declaredNames.js";
import type { ResourceTypeName } from "../../provider/resources/types.js";
import type * as dynamicSdk from "../../sdk/index.js";
import type * as nativeSdk from "../../sdk/native/index.js";

/**
 * What the provider's input schema of a type takes: for a declared kind, derived from its declaration (the registry's
 * definition of it is typed only as `AnyResourceDefinition`); for a hand-written definition, its `inputs()`.
 */
type InputsOf<N extends ResourceTypeName> = N extends DeclaredTypeName
  ? DeclaredInputs<Extract<KindDeclaration, { readonly kind: DeclaredTypeKinds[N] }>>
  : (typeof resources)[N] extends { inputs(): infer S extends z.ZodType }
    ? z.output<S>
    : unknown;

/** The args of a resource class: of the constructor that takes them when there is one that reads (`args: undefined`). */
type ArgsOf<C> = C extends {
  new (name: string, args: infer A, opts?: never): unknown;
  new (name: string, args: undefined, opts: never): unknown;
}
  ? Exclude<A, undefined>
  : C extends new (name: string, args: infer A, opts?: never) => unknown
    ? Exclude<A, undefined>
    : never;

/** The args whose type (or whether they may be left out) the provider's inputs do not take. */
type Mismatched<Args, Inputs> = {
  [K in keyof Args & keyof Inputs]-?: [Args[K]] extends [Inputs[K]] ? never : K;
}[keyof Args & keyof Inputs];

type ArgsProblems<N extends string, Sdk extends string, Args, Inputs> = unknown extends Inputs
  ? `${N}: the provider's inputs have no type to check against (write its declaration \`satisfies KindDescriptor<...>\`)`
  : [Args] extends [never]
    ? `${N} (${Sdk}): the class's constructor takes no args this check can read`
    : [Exclude<keyof Args, keyof Inputs>] extends [never]
      ? [Exclude<keyof Inputs, keyof Args>] extends [never]
        ? [Args] extends [Inputs]
          ? never
          : [Mismatched<Args, Inputs>] extends [never]
            ? `${N} (${Sdk}): args the provider does not accept`
            : `${N} (${Sdk}): an arg the provider does not accept as typed: ${Mismatched<Args, Inputs> & string}`
        : `${N} (${Sdk}): an input the class does not offer: ${Exclude<keyof Inputs, keyof Args> & string}`
      : `${N} (${Sdk}): an arg the provider does not take: ${Exclude<keyof Args, keyof Inputs> & string}`;

type Problems<N extends ResourceTypeName, Module, Sdk extends string> = N extends keyof Module
  ? ArgsProblems<N, Sdk, pulumi.Unwrap<ArgsOf<Module[N]>>, InputsOf<N>>
  : `${N}: no class in ${Sdk}`;

type Failures = {
  [N in ResourceTypeName]:
    Problems<N, typeof dynamicSdk, "cpln-pulumi"> | Problems<N, typeof nativeSdk, "cpln-pulumi/native">;
}[ResourceTypeName];

/** Each failure spelled out as a new string type, so that the compiler's message lists them rather than an alias. */
type Spelled<F> = F extends string ? `failed: ${F}` : never;

export const sdkArgsMatchProvider: [Failures] extends [never] ? true : Spelled<Failures> = true;
