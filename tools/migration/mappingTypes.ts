/** The shapes of the migration guide's maps (mapping.ts, mappingApp.ts). */

export type Status = "same" | "renamed" | "reshaped" | "missing";

export interface PropertyMapping {
  status: Status;
  /** Where the value goes in this package (a property path, or how to write it). */
  to?: string;
  why: string;
}

/**
 * A whole pulumiverse subtree placed at once: `from` (a property path) and everything under it land under `to` with
 * the same relative path (`to: ""`: the resource itself), where a property of a compatible type must exist
 * (`status` "renamed" unless given). `freeForm`: `to` is a free-form object here, the rest goes inside it unchecked
 * ("reshaped"). `missing`: the subtree has no counterpart, for `why`. A property's own entry wins over a move.
 */
export interface PropertyMove {
  from: string;
  to?: string;
  why: string;
  status?: "renamed" | "reshaped";
  freeForm?: boolean;
  missing?: boolean;
}
