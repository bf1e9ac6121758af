package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// optionFlags maps each language's Pulumi.yaml `runtime.options` to the old host's command-line flag (the flags of
// sdk/v3 nodejs/cmd/pulumi-language-nodejs v3.68.0, python/cmd/pulumi-language-python v3.79.0 and
// go/pulumi-language-go v3.66.0, main.go).
var optionFlags = map[string]map[string]string{
	"nodejs": {"typescript": "typescript", "tsconfig": "tsconfig", "nodeargs": "nodeargs"},
	"python": {"virtualenv": "virtualenv"},
	"go":     {"binary": "binary", "buildTarget": "buildTarget"},
}

// unsupportedOptions are options of newer hosts that change how a program runs; ignoring them would run it otherwise.
var unsupportedOptions = map[string]map[string]string{
	"nodejs": {"packagemanager": "npm"},
	"python": {"toolchain": "pip"},
}

// front forwards the language runtime protocol to the old host, which it starts at the first call.
type front struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	language string
	inner    string
	args     []string // this process's arguments: the engine's address last

	mu     sync.Mutex
	client pulumirpc.LanguageRuntimeClient
	conn   *grpc.ClientConn
	child  *exec.Cmd
	err    error
}

func newFront(language, inner string, args []string) *front {
	return &front{language: language, inner: inner, args: args}
}

// flags are the old host's flags for the program `info` describes.
func (f *front) flags(info *pulumirpc.ProgramInfo) ([]string, error) {
	if info == nil {
		return nil, nil
	}
	var flags []string
	if info.GetRootDirectory() != "" {
		flags = append(flags, "-root="+info.GetRootDirectory())
	}
	options := info.GetOptions().GetFields()
	for name, value := range options {
		if accepted, unsupported := unsupportedOptions[f.language][name]; unsupported {
			if text := value.GetStringValue(); text != accepted {
				return nil, fmt.Errorf("Pulumi.yaml runtime option %s: %q is not supported by this engine's %s language host "+
					"(pulumi/pulumi sdk/v3 %s); only %q is", name, text, f.language, f.innerVersion(), accepted)
			}
			continue
		}
		flag, known := optionFlags[f.language][name]
		if !known {
			continue
		}
		switch kind := value.GetKind().(type) {
		case *structpb.Value_BoolValue:
			flags = append(flags, fmt.Sprintf("-%s=%t", flag, kind.BoolValue))
		case *structpb.Value_StringValue:
			flags = append(flags, fmt.Sprintf("-%s=%s", flag, kind.StringValue))
		default:
			return nil, fmt.Errorf("Pulumi.yaml runtime option %s: expected a string or a boolean", name)
		}
	}
	return flags, nil
}

func (f *front) innerVersion() string {
	return strings.TrimPrefix(strings.TrimPrefix(f.inner[strings.LastIndex(f.inner, "/")+1:], "pulumi-language-"+f.language), "-")
}

// host is the old host's client, started with the options of `info` at the first call.
func (f *front) host(info *pulumirpc.ProgramInfo) (pulumirpc.LanguageRuntimeClient, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.client != nil || f.err != nil {
		return f.client, f.err
	}
	flags, err := f.flags(info)
	if err != nil {
		return nil, err // not remembered: a later call may carry other options
	}
	f.client, f.err = f.start(append(flags, f.args...))
	return f.client, f.err
}

// start runs the old host and connects to the port it prints. The child gets SIGKILL when the thread that started it
// ends (Pdeathsig), so it never outlives this process; that thread is kept for the child's whole life.
func (f *front) start(args []string) (pulumirpc.LanguageRuntimeClient, error) {
	type started struct {
		port string
		err  error
	}
	result := make(chan started, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine, after the child
		cmd := exec.Command(f.inner, args...)
		cmd.Stderr = os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		stdout, err := cmd.StdoutPipe()
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			result <- started{err: fmt.Errorf("starting %s: %w", f.inner, err)}
			return
		}
		f.child = cmd
		lines := bufio.NewReader(stdout)
		port, err := lines.ReadString('\n')
		if err != nil {
			result <- started{err: fmt.Errorf("%s printed no port: %w", f.inner, err)}
		} else {
			result <- started{port: strings.TrimSpace(port)}
		}
		// What the host prints after its port is the program's output: pass it on as the host's own.
		_, _ = io.Copy(os.Stdout, lines)
		_ = cmd.Wait()
	}()
	got := <-result
	if got.err != nil {
		return nil, got.err
	}
	if _, err := strconv.Atoi(got.port); err != nil {
		return nil, fmt.Errorf("%s printed %q where its port belongs", f.inner, got.port)
	}
	conn, err := grpc.NewClient("127.0.0.1:"+got.port,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30), grpc.MaxCallSendMsgSize(1<<30)))
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", f.inner, err)
	}
	f.conn = conn
	return pulumirpc.NewLanguageRuntimeClient(conn), nil
}

func (f *front) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conn != nil {
		_ = f.conn.Close()
	}
	if f.child != nil && f.child.Process != nil {
		_ = f.child.Process.Kill()
	}
}

func (f *front) GetRequiredPlugins(
	ctx context.Context, req *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	host, err := f.host(req.GetInfo())
	if err != nil {
		return nil, err
	}
	return host.GetRequiredPlugins(ctx, req)
}

func (f *front) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	host, err := f.host(req.GetInfo())
	if err != nil {
		return nil, err
	}
	return host.Run(ctx, req)
}

// GetPluginInfo is answered here, without starting the old host: the CLI may ask it first, before any call that
// carries the program's runtime options, with which the old host must start.
func (f *front) GetPluginInfo(ctx context.Context, req *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: strings.TrimPrefix(f.innerVersion(), "v")}, nil
}

func (f *front) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	host, err := f.host(req.GetInfo())
	if err != nil {
		return nil, err
	}
	return host.About(ctx, req)
}

func (f *front) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	host, err := f.host(req.GetInfo())
	if err != nil {
		return nil, err
	}
	return host.GetProgramDependencies(ctx, req)
}

// Cancel reaches the old host only if it runs: there is nothing to cancel otherwise.
func (f *front) Cancel(ctx context.Context, req *emptypb.Empty) (*emptypb.Empty, error) {
	f.mu.Lock()
	host := f.client
	f.mu.Unlock()
	if host == nil {
		return &emptypb.Empty{}, nil
	}
	return host.Cancel(ctx, req)
}

func (f *front) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, out grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse],
) error {
	host, err := f.host(req.GetInfo())
	if err != nil {
		return err
	}
	stream, err := host.InstallDependencies(out.Context(), req)
	if err != nil {
		return err
	}
	return relay(stream.Recv, out.Send)
}

func (f *front) RunPlugin(
	req *pulumirpc.RunPluginRequest, out grpc.ServerStreamingServer[pulumirpc.RunPluginResponse],
) error {
	host, err := f.host(req.GetInfo())
	if err != nil {
		return err
	}
	stream, err := host.RunPlugin(out.Context(), req)
	if err != nil {
		return err
	}
	return relay(stream.Recv, out.Send)
}

// relay sends what a server stream of the old host yields until it ends.
func relay[T any](recv func() (*T, error), send func(*T) error) error {
	for {
		message, err := recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := send(message); err != nil {
			return err
		}
	}
}
