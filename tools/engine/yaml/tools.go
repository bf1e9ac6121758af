//go:build tools

// Package yaml pins Pulumi YAML's language host that scripts/engine.sh builds. It is its own module because
// pulumi-yaml v1.25.0 is written against pulumi/pkg v3.206.0, whose plugin API differs from the CLI's v3.274.1.
package yaml

import _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
