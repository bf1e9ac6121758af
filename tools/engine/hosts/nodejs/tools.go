//go:build tools

// Package nodejs pins the Pulumi nodejs language host that scripts/engine.sh builds: the newest version of
// github.com/pulumi/pulumi/sdk/v3 that still holds it as a package (later versions moved it into a module of its own,
// which the Go module proxy does not serve; docs/real-engine.md).
package nodejs

import _ "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs"
