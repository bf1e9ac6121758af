// Runs the Go program of docs/languages.md (main.go, copied beside this file by test/engine/languages.test.ts)
// through the Automation API as an inline program, so the CLI needs no Go language host: auto.UpsertStackInlineSource
// serves the language runtime from this process (sdk/go/auto/local_workspace.go). Built with `go test -c`, run as
//
//	driver -test.run TestDriver -action up|destroy -project NAME -workdir DIR
//
// with the stack config as JSON on stdin ({"key": {"value": "...", "secret": true}}), so no secret is on the command
// line. The engine's bin directory is the first PATH entry.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
)

var (
	action  = flag.String("action", "", "up or destroy")
	project = flag.String("project", "", "the project name")
	workDir = flag.String("workdir", "", "the workspace directory")
)

func TestDriver(t *testing.T) {
	ctx := context.Background()
	var config map[string]struct {
		Value  string `json:"value"`
		Secret bool   `json:"secret"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&config); err != nil {
		t.Fatalf("the stack config on stdin: %v", err)
	}
	binDir := strings.SplitN(os.Getenv("PATH"), string(os.PathListSeparator), 2)[0]
	cmd, err := auto.NewPulumiCommand(&auto.PulumiCommandOptions{Root: filepath.Dir(binDir)})
	if err != nil {
		t.Fatal(err)
	}
	stack, err := auto.UpsertStackInlineSource(ctx, "dev", *project, program, auto.WorkDir(*workDir), auto.Pulumi(cmd))
	if err != nil {
		t.Fatal(err)
	}
	values := auto.ConfigMap{}
	for key, item := range config {
		values[key] = auto.ConfigValue{Value: item.Value, Secret: item.Secret}
	}
	if err := stack.SetAllConfig(ctx, values); err != nil {
		t.Fatal(err)
	}
	switch *action {
	case "up":
		_, err = stack.Up(ctx, optup.ProgressStreams(os.Stderr))
	case "destroy":
		_, err = stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr))
	default:
		t.Fatalf("-action must be up or destroy, not %q", *action)
	}
	if err != nil {
		t.Fatal(err)
	}
}
