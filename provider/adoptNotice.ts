/**
 * The diagnostic a create with `adopt: true` logs at check time, before anything changes, when the object exists
 * already: which object is taken over and what its PATCH will change. The engine shows it as a warning of the step
 * (test/engine/adopt.test.ts).
 */

const PREFIX = "adopting ";

export interface AdoptionNotice {
  link: string;
  /** `tags.owner (remove)`, `description (set)`; empty when the object already matches. */
  changes: string[];
  /** Inputs not known yet (preview), left out of the comparison. */
  unknown: string[];
}

export function formatAdoptionNotice(notice: AdoptionNotice): string {
  const what =
    notice.changes.length > 0
      ? `the adopting PATCH changes ${notice.changes.join(", ")}`
      : "it matches the inputs: no PATCH";
  const later = notice.unknown.length > 0 ? `; not known until the update: ${notice.unknown.join(", ")}` : "";
  return `${PREFIX}${notice.link} (it exists): ${what}${later}`;
}
