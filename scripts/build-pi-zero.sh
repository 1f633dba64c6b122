#!/usr/bin/env bash
# The Raspberry Pi Zero / Zero W / Pi 1 (ARMv6KZ) cross build: a fully static
# build-pi-zero/sundiald that runs on Raspberry Pi OS. The same as
# `scripts/build-cross.sh --target pi-zero`; see its --help.
#
# Usage: scripts/build-pi-zero.sh [--test] [--smoke] [--package]
exec "$(dirname "$0")/build-cross.sh" --target pi-zero "$@"
