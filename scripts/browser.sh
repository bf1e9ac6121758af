#!/usr/bin/env bash
# Installs Debian's Chromium for the console's browser tests when it is missing (playwright-core drives it; Playwright's
# own browser download cannot work on the project's machines). Needs root (CI runs as root) or sudo.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
command -v chromium >/dev/null 2>&1 || { echo "browser: apt-get installed no chromium" >&2; exit 1; }
