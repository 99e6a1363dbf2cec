# The binary workload (bench/workloads/binary.py), sourced by bench/run. Nothing to install beyond the
# common peers: gzip and zstd are Rust crates (flate2 on Debian's zlib1g-dev, which libxml2-dev already
# brings; zstd with libzstd built in), EXIficient comes from Maven Central with the JVM peers
# (bench/peers/java/pom.xml), pugixml and lxml are the common peers.
pkgs+=(zlib1g-dev)

build_binary() {
    cargo build --release -q -p vtdx-bench --bin binary_peers # vtdx-binary, gzip and zstd in process
}
