//go:build tools

// Package go pins the Pulumi go language host that scripts/engine.sh builds: the newest version of
// github.com/pulumi/pulumi/sdk/v3 that still holds it as a package (later versions moved it into a module of its own,
// which the Go module proxy does not serve; docs/real-engine.md).
package go

import _ "github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go"
