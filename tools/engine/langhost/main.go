// Command langhost is the Node.js, Python and Go language host the engine's bin directory puts on PATH (installed as
// pulumi-language-nodejs, -python and -go; the name it is started as says the language). It fronts the host that the
// Go module proxy still serves for that language — a package of github.com/pulumi/pulumi/sdk/v3 at the last version
// that held it (v3.68.0, v3.79.0, v3.66.0; installed beside it as pulumi-language-<language>-<version>) — and adds
// what the pinned CLI (v3.274.1) asks of a language host that such an old host does not do (docs/real-engine.md):
//
//   - runtime options: the CLI sends Pulumi.yaml's `runtime.options` in each request (ProgramInfo); the old hosts read
//     them only as command-line flags. The front starts the old host at the first request that carries them, with
//     the flags they map to (virtualenv, typescript, tsconfig, nodeargs, binary, buildTarget) and -root.
//   - GenerateProgram: program generation from PCL (`pulumi import` code, `pulumi convert`), done here with Pulumi's
//     own generators at the CLI's version (github.com/pulumi/pulumi/pkg/v3/codegen/{nodejs,python,go}).
//
// Every other call goes to the old host as it came, and what it does not implement answers Unimplemented, which the
// CLI treats as an older host (GetRequiredPackages falls back to GetRequiredPlugins, and so on).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
)

// version is the hash of this command's sources (scripts/engine.sh stamps it).
var version = "unstamped"

func main() {
	self, err := os.Executable()
	if err != nil {
		cmdutil.Exit(fmt.Errorf("finding this executable: %w", err))
	}
	language := strings.TrimPrefix(filepath.Base(os.Args[0]), "pulumi-language-")
	if _, known := optionFlags[language]; !known {
		cmdutil.Exit(fmt.Errorf("started as %q: expected pulumi-language-nodejs, -python or -go", os.Args[0]))
	}
	inner, err := innerHost(filepath.Dir(self), language)
	if err != nil {
		cmdutil.Exit(err)
	}

	// The CLI passes the engine's address last; older CLIs put flags before it, which the old host takes as they are.
	args := os.Args[1:]
	engineAddress := ""
	if len(args) > 0 {
		engineAddress = args[len(args)-1]
	}
	front := newFront(language, inner, args)

	ctx, cancel := context.WithCancel(context.Background())
	stop := make(chan bool)
	go func() {
		signals := make(chan os.Signal, 1)
		signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
		select {
		case <-signals:
		case <-ctx.Done():
		}
		close(stop)
	}()
	if engineAddress != "" {
		// As the hosts themselves do: stop when the engine is gone.
		if err := rpcutil.Healthcheck(ctx, engineAddress, 5*time.Second, cancel); err != nil {
			cmdutil.Exit(fmt.Errorf("starting the health check of the engine: %w", err))
		}
	}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: stop,
		Init: func(server *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(server, front)
			return nil
		},
		Options: rpcutil.OpenTracingServerInterceptorOptions(nil),
	})
	if err != nil {
		cmdutil.Exit(fmt.Errorf("starting the language host's server: %w", err))
	}
	fmt.Printf("%d\n", handle.Port)
	served := <-handle.Done
	front.close()
	if served != nil {
		cmdutil.Exit(fmt.Errorf("the language host's server stopped: %w", served))
	}
}

// innerHost is the one pulumi-language-<language>-v* beside this executable.
func innerHost(dir, language string) (string, error) {
	found, err := filepath.Glob(filepath.Join(dir, "pulumi-language-"+language+"-v*"))
	if err != nil {
		return "", err
	}
	if len(found) != 1 {
		return "", fmt.Errorf("langhost %s: expected one pulumi-language-%s-v<version> beside %s, found %d "+
			"(run `npm run engine`)", version, language, dir, len(found))
	}
	return found[0], nil
}
