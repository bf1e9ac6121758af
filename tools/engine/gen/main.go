// Command gen writes the Python, Go and Node.js SDKs of a Pulumi package schema (the project's schema.json) with Pulumi's own
// code generators (github.com/pulumi/pulumi/pkg/v3/codegen/python and .../codegen/go), at the version pinned in
// go.mod. It exists because `pulumi package gen-sdk` delegates SDK generation to the language hosts
// (pulumi-language-python, pulumi-language-go), which the Go module proxy here does not serve (docs/languages.md).
//
//	gen -schema schema.json -language python|go|nodejs -version 0.1.0 -out DIR
//
// The schema is bound with validation (schema.BindSpec) first, so a schema the engine would reject fails here with the
// binder's diagnostics. It references no other package, so the loader refuses every load.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodegen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noLoader refuses to load other packages: the schema must be self-contained.
type noLoader struct{}

func (noLoader) refuse(pkg string) error {
	return fmt.Errorf("the schema references package %q; gen generates self-contained schemas only", pkg)
}

func (l noLoader) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, l.refuse(pkg)
}

func (l noLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, l.refuse(d.Name)
}

func (l noLoader) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, l.refuse(pkg)
}

func (l noLoader) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, l.refuse(d.Name)
}

const tool = "cpln-pulumi-gen"

func run() error {
	schemaPath := flag.String("schema", "", "the package schema (JSON)")
	language := flag.String("language", "", "python, go or nodejs")
	out := flag.String("out", "", "the directory to write the SDK into (replaced)")
	version := flag.String("version", "", "the package version to stamp into the SDK (the plugin version it asks for)")
	flag.Parse()
	if *schemaPath == "" || *out == "" || *version == "" || (*language != "python" && *language != "go" && *language != "nodejs") {
		return errors.New("usage: gen -schema schema.json -language python|go|nodejs -version X.Y.Z -out DIR")
	}
	raw, err := os.ReadFile(*schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s: %w", *schemaPath, err)
	}
	if _, err := semver.Parse(*version); err != nil {
		return fmt.Errorf("-version %q is not a semantic version: %w", *version, err)
	}
	// The version is the plugin's; packing support makes the generators write the package's own manifest (go.mod,
	// pyproject.toml) and the version into pulumi-plugin.json.
	spec.Version = *version
	if spec.Meta == nil {
		spec.Meta = &schema.MetadataSpec{}
	}
	spec.Meta.SupportPack = true
	pkg, diags, err := schema.BindSpec(spec, noLoader{}, schema.ValidationOptions{})
	if err != nil {
		return fmt.Errorf("%s: %w", *schemaPath, err)
	}
	if diags.HasErrors() {
		return fmt.Errorf("%s does not bind: %s", *schemaPath, diags.Error())
	}
	var files map[string][]byte
	switch *language {
	case "python":
		files, err = pygen.GeneratePackage(tool, pkg, nil, nil)
	case "go":
		files, err = gogen.GeneratePackage(tool, pkg, nil)
	case "nodejs":
		files, err = nodegen.GeneratePackage(tool, pkg, nil, nil, false, noLoader{})
	}
	if err != nil {
		return fmt.Errorf("generating the %s SDK: %w", *language, err)
	}
	if err := os.RemoveAll(*out); err != nil {
		return err
	}
	for name, content := range files {
		target := filepath.Join(*out, name)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
