//go:build tools

// Package python pins the Pulumi python language host that scripts/engine.sh builds: the newest version of
// github.com/pulumi/pulumi/sdk/v3 that still holds it as a package (later versions moved it into a module of its own,
// which the Go module proxy does not serve; docs/real-engine.md).
package python

import _ "github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python"
