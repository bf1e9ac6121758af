// pulumi-resource-gorandom: the Go provider the cold-start benchmark (bench/coldstart.ts) compares the cpln-native
// plugin with. The Go module proxy refuses pulumi-random's provider module here, so this is the smallest provider
// written the same way: Pulumi's Go SDK (provider.Main serving ResourceProviderServer over gRPC), one resource
// (`gorandom:index:RandomString`, a random string of `length` characters), its schema served by GetSchema.
// An optional `tag` (any string, e.g. other resources' results) changes in place: Diff says update, Update keeps the
// result. bench/app-yaml.ts's `floor` builds the app's graph of 7 resources from it (edges through `tag`), so an
// engine command's cost with a provider that answers at once and sends no request is measured on the same graph.
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

const version = "0.1.0"

var schema = map[string]any{
	"name":    "gorandom",
	"version": version,
	"resources": map[string]any{
		"gorandom:index:RandomString": map[string]any{
			"inputProperties": map[string]any{
				"length": map[string]any{"type": "integer"},
				"tag":    map[string]any{"type": "string"},
			},
			"requiredInputs": []string{"length"},
			"properties": map[string]any{
				"length": map[string]any{"type": "integer"},
				"tag":    map[string]any{"type": "string"},
				"result": map[string]any{"type": "string"},
			},
			"required": []string{"length", "result"},
		},
	},
}

type randomProvider struct {
	pulumirpc.UnimplementedResourceProviderServer
}

func (randomProvider) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

func (randomProvider) GetSchema(context.Context, *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	text, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetSchemaResponse{Schema: string(text)}, nil
}

func (randomProvider) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (randomProvider) DiffConfig(context.Context, *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
}

func (randomProvider) Configure(context.Context, *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	return &pulumirpc.ConfigureResponse{SupportsPreview: true}, nil
}

func (randomProvider) Check(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	length := req.GetNews().GetFields()["length"].GetNumberValue()
	if length < 1 || length > 1024 {
		return &pulumirpc.CheckResponse{Failures: []*pulumirpc.CheckFailure{
			{Property: "length", Reason: "length must be between 1 and 1024"},
		}}, nil
	}
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (randomProvider) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	before, after := req.GetOldInputs().GetFields(), req.GetNews().GetFields()
	if before["length"].GetNumberValue() != after["length"].GetNumberValue() {
		return &pulumirpc.DiffResponse{
			Changes: pulumirpc.DiffResponse_DIFF_SOME, Replaces: []string{"length"}, DeleteBeforeReplace: true,
		}, nil
	}
	if before["tag"].GetStringValue() != after["tag"].GetStringValue() {
		return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME, Diffs: []string{"tag"}}, nil
	}
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
}

// Update changes the tag in place: the new inputs with the result the resource already has.
func (randomProvider) Update(_ context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	fields := map[string]*structpb.Value{}
	for key, value := range req.GetNews().GetFields() {
		fields[key] = value
	}
	fields["result"] = req.GetOlds().GetFields()["result"]
	return &pulumirpc.UpdateResponse{Properties: &structpb.Struct{Fields: fields}}, nil
}

func randomString(length int) (string, error) {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	out := make([]byte, length)
	for i := range out {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(letters))))
		if err != nil {
			return "", err
		}
		out[i] = letters[n.Int64()]
	}
	return string(out), nil
}

func (randomProvider) Create(_ context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	fields := map[string]*structpb.Value{"length": req.GetProperties().GetFields()["length"]}
	if tag, ok := req.GetProperties().GetFields()["tag"]; ok {
		fields["tag"] = tag
	}
	if !req.GetPreview() {
		result, err := randomString(int(fields["length"].GetNumberValue()))
		if err != nil {
			return nil, err
		}
		fields["result"] = structpb.NewStringValue(result)
	}
	id, err := randomString(16)
	if err != nil {
		return nil, err
	}
	if req.GetPreview() {
		id = ""
	}
	return &pulumirpc.CreateResponse{Id: id, Properties: &structpb.Struct{Fields: fields}}, nil
}

func (randomProvider) Read(_ context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	return &pulumirpc.ReadResponse{Id: req.GetId(), Properties: req.GetProperties(), Inputs: req.GetInputs()}, nil
}

func (randomProvider) Delete(context.Context, *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func main() {
	err := provider.Main("gorandom", func(*provider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return randomProvider{}, nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
