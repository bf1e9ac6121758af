/** A JSON value: beneath the patch rules and the JSON helpers, which both speak of it. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}
