# The xmlenc workload (bench/workloads/xmlenc.py), sourced by bench/run: xmlsec1 (a peer) and openssl (the
# run's key); its Rust program and the vtdx binary. Its Python peers use the dsig workload's venv
# (bench/out/venv-dsig: python-xmlsec, lxml, cryptography), which bench/run makes for dsig and xmlenc alike.
pkgs+=(xmlsec1 openssl)
build_xmlenc() {
    cargo build --release -q -p vtdx-bench --bin xmlenc_peers # vtdx-dsig in process and the aws-lc floor
    cargo build --release -q -p vtdx-cli --bin vtdx          # vtdx encrypt / decrypt as whole processes
}
