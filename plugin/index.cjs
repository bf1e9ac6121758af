// Entry point of the source-based plugin: the Node.js language host requires this folder with the engine's
// arguments in process.argv. The provider is the package one directory up (built with `npm run build`).
"use strict";
require("../dist/provider/native/main.js");
