//! The graph loader: `Graph::from_json` on any text. A graph that loads must write itself
//! back (`to_json`, what a share link embeds) to a text that loads as the same graph, and
//! runs on a small fixed cluster (see `placesim_fuzz::exercise`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use placesim::model::cluster::Cluster;
use placesim::model::graph::Graph;
use placesim_fuzz as h;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let graph = match Graph::from_json(text, "g") {
        Ok(g) => g,
        Err(e) => return h::check_error(&e),
    };
    let again = Graph::from_json(&graph.to_json(), "other")
        .unwrap_or_else(|e| panic!("a loaded graph's own JSON does not load: {e}"));
    assert_eq!(graph, again, "a graph changes through its own JSON");
    let cluster = Cluster::from_json(h::CLUSTER, "c").unwrap();
    h::exercise(&h::plain_scenario(), &graph, Some(&cluster), h::salt(data));
});
