package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	pythongen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// programGenerators are Pulumi's own PCL → program generators, at the CLI's pkg/v3 version.
var programGenerators = map[string]func(*pcl.Program) (map[string][]byte, hcl.Diagnostics, error){
	"nodejs": nodejsgen.GenerateProgram,
	"python": pythongen.GenerateProgram,
	"go":     gogen.GenerateProgram,
}

// GenerateProgram turns a PCL program (what `pulumi import` makes of the imported resources, or `pulumi convert` of
// another language) into this language's source. Schemas come from the engine's loader; binding is lenient unless
// the request asks for strict, as the CLI's own hosts do (import binds non-strict: generated code may reference a
// parent or provider it does not declare).
func (f *front) GenerateProgram(
	ctx context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	generate := programGenerators[f.language]
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, fmt.Errorf("connecting to the engine's schema loader: %w", err)
	}
	defer loader.Close()

	parser := syntax.NewParser()
	names := make([]string, 0, len(req.GetSource()))
	for name := range req.GetSource() {
		names = append(names, name)
	}
	sort.Strings(names) // one order for the same input, so the output is the same too
	for _, name := range names {
		if err := parser.ParseFile(strings.NewReader(req.GetSource()[name]), name); err != nil {
			return nil, fmt.Errorf("parsing %s: %w", name, err)
		}
	}
	diagnostics := parser.Diagnostics
	if diagnostics.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diagnostics)}, nil
	}

	options := []pcl.BindOption{pcl.PreferOutputVersionedInvokes}
	if !req.GetStrict() {
		options = append(options, pcl.NonStrictBindOptions()...)
	}
	program, bound, err := pcl.BindProgramWithContext(ctx, parser.Files, schema.NewCachedLoader(loader), options...)
	if err != nil {
		return nil, fmt.Errorf("binding the program: %w", err)
	}
	diagnostics = append(diagnostics, bound...)
	if bound.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diagnostics)}, nil
	}

	files, generated, err := generate(program)
	if err != nil {
		return nil, fmt.Errorf("generating %s: %w", f.language, err)
	}
	diagnostics = append(diagnostics, generated...)
	return &pulumirpc.GenerateProgramResponse{
		Source:      files,
		Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diagnostics),
	}, nil
}
