# Building the Debian package, for the e2e scripts that need one (deb-lifecycle.sh, deb-boot-vm.sh;
# after lib/common.sh, from the repository's top folder). dpkg-buildpackage reuses the release
# build scripts/test already made: only the version and the link differ.
#   build_deb VERSION DIR   builds darkmode-kiosk_VERSION_ARCH.deb (the changelog's top entry must
#                           say VERSION) and moves it with its .buildinfo and .changes into DIR;
#                           prints which Swift modules were compiled (none: the release build was
#                           current; grep finding nothing must not end a `set -e` script). The log:
#                           DIR/build-VERSION.log.
build_deb() {
    local version=$1 dir=$2 arch f compiled
    arch=$(dpkg --print-architecture)
    local log="$dir/build-$version.log"
    mkdir -p "$dir"
    DEB_BUILD_OPTIONS=noddebs dpkg-buildpackage -b -us -uc >"$log" 2>&1 \
        || fail "dpkg-buildpackage ($version) failed: $(tail -20 "$log")"
    for f in ../darkmode-kiosk_"$version"_"$arch".{deb,buildinfo,changes}; do
        [ -f "$f" ] || fail "dpkg-buildpackage ($version) made no $f"
        mv "$f" "$dir/"
    done
    compiled=$( (grep -o 'Compiling [A-Za-z_]*' "$log" || true) | sort -u | cut -d' ' -f2 | tr '\n' ' ')
    echo "info: the $version build compiled: ${compiled:-nothing} (the Swift modules are compiled only when scripts/test has not made the same release build)"
}
