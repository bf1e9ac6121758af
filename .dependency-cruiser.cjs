// `npm run lint` fails on any import circle among our sources (docs/ARCHITECTURE.md): the kind names and the
// permission catalogs sit beneath the schemas that need them, never above. Type-only imports count too
// (tsPreCompilationDeps): a circle of types still ties the modules' meaning together.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import circle: break it by moving what both sides need beneath them.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules|\\.tmp)/" },
  },
};
