// Command gen-dotnet writes the .NET SDK of a Pulumi package schema (the project's schema.json) with Pulumi's own C#
// code generator, github.com/pulumi/pulumi/pkg/v3/codegen/dotnet, at the version pinned in go.mod: v3.225.1, the
// newest pkg/v3 the Go module proxy serves that still holds it. Pulumi froze that package and moved it to
// github.com/pulumi/pulumi-dotnet/pulumi-language-dotnet/v3/codegen (pulumi/pulumi#21720, deleted in #22435), a module
// the proxy refuses (docs/languages.md). It is a module of its own because tools/engine/gen pins a later pkg/v3 for
// the Python, Go and Node.js generators.
//
//	gen-dotnet -schema schema.json -version 0.1.0 -logo docs/logo.png -out DIR
//
// The generator downloads the schema's logoUrl into the package's logo.png (the NuGet icon). Here that one address
// is answered from the -logo file (NuGet takes a PNG or JPEG icon, the schema's logo is an SVG) and every other HTTP
// request is refused, so generation never touches the network and its output depends on the repository alone.
// The schema is bound with validation first and references no other package, as in tools/engine/gen.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	dotnetgen "github.com/pulumi/pulumi/pkg/v3/codegen/dotnet"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noLoader refuses to load other packages: the schema must be self-contained.
type noLoader struct{}

func (noLoader) refuse(pkg string) error {
	return fmt.Errorf("the schema references package %q; gen-dotnet generates self-contained schemas only", pkg)
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

// logoOnly answers a GET of url with logo and refuses every other request.
type logoOnly struct {
	url  string
	logo []byte
}

func (t logoOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet || r.URL.String() != t.url {
		return nil, fmt.Errorf("gen-dotnet makes no request but the logo's (%s), refused %s %s", t.url, r.Method, r.URL)
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": []string{http.DetectContentType(t.logo)}},
		Body:          io.NopCloser(bytes.NewReader(t.logo)),
		ContentLength: int64(len(t.logo)),
		Request:       r,
	}, nil
}

const tool = "cpln-pulumi-gen-dotnet"

func run() error {
	schemaPath := flag.String("schema", "", "the package schema (JSON)")
	out := flag.String("out", "", "the directory to write the SDK into (replaced)")
	version := flag.String("version", "", "the package version to stamp into the SDK (the plugin version it asks for)")
	logoPath := flag.String("logo", "", "a PNG or JPEG file: the package's icon, served for the schema's logoUrl")
	flag.Parse()
	if *schemaPath == "" || *out == "" || *version == "" || *logoPath == "" {
		return errors.New("usage: gen-dotnet -schema schema.json -version X.Y.Z -logo logo.png -out DIR")
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
	logo, err := os.ReadFile(*logoPath)
	if err != nil {
		return err
	}
	if kind := http.DetectContentType(logo); kind != "image/png" && kind != "image/jpeg" {
		return fmt.Errorf("-logo %s is %s; a NuGet icon is a PNG or a JPEG", *logoPath, kind)
	}
	if spec.LogoURL == "" {
		return fmt.Errorf("%s has no logoUrl: the generator would download Pulumi's logo instead", *schemaPath)
	}
	http.DefaultTransport = logoOnly{url: spec.LogoURL, logo: logo}
	spec.Version = *version
	pkg, diags, err := schema.BindSpec(spec, noLoader{}, schema.ValidationOptions{})
	if err != nil {
		return fmt.Errorf("%s: %w", *schemaPath, err)
	}
	if diags.HasErrors() {
		return fmt.Errorf("%s does not bind: %s", *schemaPath, diags.Error())
	}
	files, err := dotnetgen.GeneratePackage(tool, pkg, nil, nil)
	if err != nil {
		return fmt.Errorf("generating the .NET SDK: %w", err)
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
		fmt.Fprintln(os.Stderr, "gen-dotnet:", err)
		os.Exit(1)
	}
}
