# The validate workload (bench/workloads/validate.py): xmllint (libxml2-utils) as a whole process, Python xmlschema
# (PyPI, pure Python) into bench/out/venv beside lxml, vtdx's peers and the vtdx binary (`vtdx validate`).
pkgs+=(libxml2-utils time)
build_validate() {
    cargo build --release -q -p vtdx-bench --bin validate_peers
    cargo build --release -q -p vtdx-cli --bin vtdx # `vtdx validate` as a whole process
    if ! "$out/venv/bin/python" -c "import xmlschema" 2>/dev/null; then
        say "pip install xmlschema into $out/venv (PyPI)"
        "$out/venv/bin/pip" install -q xmlschema >>"$out/pip-validate.log" 2>&1 \
            || say "WARNING: pip install xmlschema failed (see $out/pip-validate.log): its cells are skip lines"
    fi
}
