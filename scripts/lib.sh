# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Helpers shared by scripts/*.sh (sourced, not run).

# ensure_setup: run scripts/setup.sh when something it installs is missing.
ensure_setup() {
	if ! "$top/scripts/setup.sh" --check >/dev/null 2>&1; then
		if [ "$(id -u)" -eq 0 ]; then
			"$top/scripts/setup.sh"
		else
			"$top/scripts/setup.sh" --check || true
			echo "$(basename "$0"): setup is incomplete; run 'sudo scripts/setup.sh' once" >&2
			exit 1
		fi
	fi
}

# configure DIR [meson args...]: set up or reconfigure a build directory.
configure() {
	local dir=$1
	shift
	if [ -f "$dir/build.ninja" ]; then
		meson configure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@" >/dev/null
	fi
}
