"""Runs a Pulumi Python program (a __main__.py) through the Automation API as an inline program, so the CLI needs no
Python language host: the SDK serves the language runtime itself (pulumi/automation/_stack.py runs inline programs
on its own LanguageServer). Used by test/engine/languages.test.ts.

    python driver.py up|destroy <program.py> <project name> <work dir>

Reads the stack config from stdin as JSON ({"key": {"value": "...", "secret": true}}), so no secret is on the command
line. Prints one JSON line: the change summary and the outputs, a secret output as {"secret": true} without its value.
"""

import json
import os
import runpy
import sys

from pulumi import automation as auto


def main() -> None:
    action, program_path, project, work_dir = sys.argv[1:5]
    config = json.load(sys.stdin)

    def program() -> None:
        runpy.run_path(program_path, run_name="__main__")

    # PulumiCommand(root=R) runs R/bin/pulumi: the engine's bin directory is the first PATH entry.
    bin_dir = os.environ["PATH"].split(os.pathsep)[0]
    stack = auto.create_or_select_stack(
        stack_name="dev",
        project_name=project,
        program=program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=work_dir,
            pulumi_command=auto.PulumiCommand(root=os.path.dirname(bin_dir)),
        ),
    )
    stack.set_all_config(
        {key: auto.ConfigValue(value=item["value"], secret=item.get("secret", False)) for key, item in config.items()}
    )
    if action == "up":
        result = stack.up(on_output=lambda line: print(line, file=sys.stderr))
        changes = result.summary.resource_changes
        outputs = {
            name: {"secret": True} if output.secret else {"secret": False, "value": output.value}
            for name, output in result.outputs.items()
        }
    elif action == "destroy":
        result = stack.destroy(on_output=lambda line: print(line, file=sys.stderr))
        changes = result.summary.resource_changes
        outputs = {}
    else:
        raise SystemExit(f"driver.py: the action must be up or destroy, not {action!r}")
    print(json.dumps({"changes": changes, "outputs": outputs}))


if __name__ == "__main__":
    main()
