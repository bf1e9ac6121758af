export * from "./lazy.js";
export * from "./errors.js";
export * from "./kinds/index.js";
export * from "./links.js";
export * from "./schemas/index.js";
export * from "./query.js";
export * from "./patch/index.js";
