//go:build tools

// Package cli pins the Pulumi CLI that scripts/engine.sh builds: `go build github.com/pulumi/pulumi/pkg/v3/cmd/pulumi`
// inside this module uses exactly the versions in go.mod and go.sum.
package cli

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
