# The template workload (bench/workloads/template.py): the vtdx peers with and without the template cache. The
# other peers (pugixml_peer, rust_peers' simdxml, lxml_peer.py) are the common ones bench/run builds anyway.
build_template() {
    cargo build --release -q -p vtdx-bench --bin template_peers
}
